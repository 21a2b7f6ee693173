// Package read is riot's Read tool: it shows one file to the model, as
// numbered lines in the style of `cat -n`, or as an image block for PNG,
// JPEG, GIF and WebP files.
//
// It owns the line window (offset and limit over a file of any size, read
// with bounded memory and never past the end of the window by more than a
// fixed amount), the cutting of long lines, the repair of invalid UTF-8,
// the refusal of directories, devices and binary files, and the hints a
// model gets for a missing file. The permission decision is not its
// business: it declares the path it reads and the core's chain decides.
package read
