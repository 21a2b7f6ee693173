// Package config owns riot's configuration: the schema, the embedded
// defaults, layered loading with the provenance of every value, and the
// discovery of plugin binaries.
//
// Layers, each overriding the ones before it: the embedded defaults,
// $XDG_CONFIG_HOME/riot/config.toml, <workspace>/.riot/config.toml,
// <workspace>/.riot/config.local.toml, the file given with --config,
// RIOT_* environment variables, and flags. Scalars override; the rule and
// directory lists merge. An unknown key or a bad value is an *Error naming
// the file and line, with the nearest valid key where there is one.
//
// The two workspace layers come from the repository, so until the user
// trusts the workspace (package trust) they keep only the keys declared
// tightening, and .riot/plugins is not searched (gate.go).
package config
