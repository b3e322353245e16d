package settings

// MaxFileBytes caps a settings file (and .mcp.json) when it is read. Real
// ones are a few kilobytes; a bigger one is a mistake or a trap, and a named
// pipe or a device is refused before any byte is read (pathutil.ReadFile).
const MaxFileBytes = 4 << 20
