module github.com/toolhost/toolhost

go 1.26.8

require (
	github.com/JohannesKaufmann/html-to-markdown/v2 v2.5.2
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/coder/websocket v1.8.15
	github.com/go-git/go-git/v5 v5.19.3
	github.com/go-json-experiment/json v1.27.2
	github.com/google/jsonschema-go v0.4.3
	github.com/itchyny/gojq v0.12.20
	github.com/landlock-lsm/go-landlock v0.11.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/segmentio/encoding v0.5.4
	github.com/sergi/go-diff v1.4.0
	go.lsp.dev/protocol v0.12.0
	go.yaml.in/yaml/v3 v3.0.4
	golang.org/x/image v0.48.0
	golang.org/x/net v0.62.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
	golang.org/x/text v0.44.0
	golang.org/x/tools v0.52.0
	mvdan.cc/sh/v3 v3.14.1
)

require (
	github.com/JohannesKaufmann/dom v0.3.1 // indirect
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/stretchr/testify v1.11.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.lsp.dev/jsonrpc2 v0.10.0 // indirect
	go.lsp.dev/pkg v0.0.0-20210717090340-384b27a52fb2 // indirect
	go.lsp.dev/uri v0.3.0 // indirect
	go.uber.org/multierr v1.10.0 // indirect
	go.uber.org/zap v1.28.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.77 // indirect
)

// Patched copy of santhosh-tekuri/jsonschema v6.0.3: the drafts'
// metaschemas are compiled on first use instead of in init (see
// third_party/jsonschema/PATCHES.md).
replace github.com/santhosh-tekuri/jsonschema/v6 => ./third_party/jsonschema

// Patched copy of itchyny/gojq v0.12.20: its builtin function tables are
// built on the first Compile instead of in init (see
// third_party/gojq/PATCHES.md).
replace github.com/itchyny/gojq => ./third_party/gojq

// Cut-down copy of golang.org/x/net v0.62.0 (only the packages the build
// uses): x/net/html's entity tables are built on first use instead of in
// init (see third_party/xnet/PATCHES.md).
replace golang.org/x/net => ./third_party/xnet

// Patched copy of google/jsonschema-go v0.4.3: the table of Schema's
// fields is built on first use instead of in init (see
// third_party/jsonschema-go/PATCHES.md).
replace github.com/google/jsonschema-go => ./third_party/jsonschema-go

// Patched copy of the MCP Go SDK v1.8.0 (only the packages the build
// uses): adding a tool whose input schema is raw JSON decodes only what
// the checks read (see third_party/go-sdk/PATCHES.md).
replace github.com/modelcontextprotocol/go-sdk => ./third_party/go-sdk

// One package of go-git v5.19.3, the gitignore pattern matcher, without
// the file that reads git's global configuration (see
// third_party/go-git/PATCHES.md).
replace github.com/go-git/go-git/v5 => ./third_party/go-git

// Patched copies whose package-level regular expressions are compiled on
// first use instead of in init: go.yaml.in/yaml/v3 v3.0.4, mvdan.cc/sh/v3
// v3.14.1 (only the packages the build uses) and github.com/sergi/go-diff
// v1.4.0 (see third_party/{yaml,sh,go-diff}/PATCHES.md).
replace go.yaml.in/yaml/v3 => ./third_party/yaml

replace mvdan.cc/sh/v3 => ./third_party/sh

replace github.com/sergi/go-diff => ./third_party/go-diff

// Cut-down copy of html-to-markdown v2.5.2 (only the packages the build
// uses): its one package-level pattern is compiled on first use (see
// third_party/html-to-markdown/PATCHES.md).
replace github.com/JohannesKaufmann/html-to-markdown/v2 => ./third_party/html-to-markdown
