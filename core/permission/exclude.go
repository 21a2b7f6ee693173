package permission

// CommandMatches reports whether a command subject matches pattern, a
// command specifier as written in Bash(...) rules ("docker *", "make:*",
// "npm test"), the way an allow rule would match it: a wildcard pattern
// does not match a command that chains, substitutes or redirects, so
// "docker *" never covers "docker ps; rm -rf ~"; it is matched on the
// command's words (see cmdPattern). [sandbox]
// excluded_commands is matched with it, since it loosens as an allow rule
// does.
func CommandMatches(pattern, command string) bool {
	return compileCommand(pattern).allows(parseCommandSubject(command))
}
