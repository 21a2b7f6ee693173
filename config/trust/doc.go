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
// until revoked. Trust covers content, not only the directory: the record
// keeps the SHA-256 of each of the workspace's files that can loosen
// checks or run code (config.ContentFiles) as the user trusted them
// (Entry.Files), since the model, a command or a git pull can change them
// later; a file with another sum may only tighten until riot trust runs
// again and shows the change. riot's own writes to those files on the
// user's answer (an "always allow" on the terminal, riot plugins install)
// record the new sum in the same step under the record's lock
// (Store.Amend, Store.Revouch), and only over content the record vouched
// for. An entry trusted before sums were kept has no Files and vouches
// for no file. Entry.Local is the sum of the .riot/config.local.toml riot
// wrote for the user's "always allow" answers in a workspace that is not
// trusted: that file applies while it is byte for byte the same, and the
// workspace's trust is left as it was.
package trust
