package plugin

// Version is the SDK version, reported in every Manifest.
const Version = "0.1.0"
