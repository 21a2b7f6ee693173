# Sourced by the session host benchmarks: medians FILE prints each command
# of a hyperfine --export-json FILE with its median and minimum, and their
# ratio to the first command's (riot version). Medians and minimums resist
# a busy machine better than means. Without jq it prints nothing.
medians() {
	command -v jq >/dev/null || return 0
	jq -r '.results as $r | ($r[0].median) as $v | ($r[0].min) as $vm
		| $r[] | "\(.command): median \(.median * 1e4 | round / 10) ms (\(.median / $v * 100 | round / 100)x version), min \(.min * 1e4 | round / 10) ms (\(.min / $vm * 100 | round / 100)x)"' "$1"
}
