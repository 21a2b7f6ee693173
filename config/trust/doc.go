// Package trust owns the record of the workspaces the user trusts to
// loosen riot's checks: which directories, kept where the workspace cannot
// write it, and how a directory is named in it.
//
// The record is $XDG_CONFIG_HOME/riot/trusted.json (or
// ~/.config/riot/trusted.json), beside the user's own config: its place
// does not depend on any config value (state_dir is itself a key that
// trust gates), and the permission chain already protects that directory
// from tools. A workspace is named by its real path: absolute, every
// symlink resolved component by component. Trust is exact: it does not
// extend to subdirectories, so a nested workspace (a submodule, a clone
// inside a trusted tree) is trusted on its own, and a moved or renamed
// directory is a new, untrusted one; its old entry stays listed as missing
// until revoked. Trust is in the directory, not in a version of its config:
// no hash is kept, as trusting a repository is trusting its authors, and a
// hash would ask again at every pull that touches .riot/. The one hash kept
// is of the .riot/config.local.toml riot itself wrote for the user's
// "always allow" answers in an untrusted workspace (Entry.Local): that
// file applies while it is byte for byte the same, and the workspace's
// trust is left as it was.
package trust
