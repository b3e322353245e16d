package shell

import (
	"errors"
	"strings"
	"testing"
)

func TestFindBash(t *testing.T) {
	const wsl = `C:\Windows\System32\bash.exe`
	tests := []struct {
		name    string
		env     map[string]string
		path    map[string]string // what lookPath finds
		files   []string
		want    string
		wantErr string
	}{
		{
			name:  "the variable wins",
			env:   map[string]string{BashPathVar: `D:\tools\bash.exe`, "ProgramFiles": `C:\Program Files`},
			files: []string{`D:\tools\bash.exe`, `C:\Program Files\Git\bin\bash.exe`},
			want:  `D:\tools\bash.exe`,
		},
		{
			name:    "the variable names no file",
			env:     map[string]string{BashPathVar: `D:\nope.exe`},
			wantErr: BashPathVar + ` is set to D:\nope.exe`,
		},
		{
			name:  "beside git on PATH (cmd folder)",
			path:  map[string]string{"git.exe": `E:\PortableGit\cmd\git.exe`, "bash.exe": wsl},
			files: []string{`E:\PortableGit\bin\bash.exe`},
			want:  `E:\PortableGit\bin\bash.exe`,
		},
		{
			name:  "beside git on PATH (mingw64 folder)",
			path:  map[string]string{"git.exe": `E:\Git\mingw64\bin\git.exe`},
			files: []string{`E:\Git\bin\bash.exe`},
			want:  `E:\Git\bin\bash.exe`,
		},
		{
			name:  "the usual install folder",
			env:   map[string]string{"ProgramFiles": `C:\Program Files`},
			path:  map[string]string{"bash.exe": wsl},
			files: []string{`C:\Program Files\Git\bin\bash.exe`},
			want:  `C:\Program Files\Git\bin\bash.exe`,
		},
		{
			name:  "a per-user install",
			env:   map[string]string{"LOCALAPPDATA": `C:\Users\me\AppData\Local`},
			files: []string{`C:\Users\me\AppData\Local\Programs\Git\bin\bash.exe`},
			want:  `C:\Users\me\AppData\Local\Programs\Git\bin\bash.exe`,
		},
		{
			name: "another bash on PATH",
			path: map[string]string{"bash.exe": `C:\msys64\usr\bin\bash.exe`},
			want: `C:\msys64\usr\bin\bash.exe`,
		},
		{
			name:    "only WSL's launcher",
			env:     map[string]string{"SystemRoot": `C:\WINDOWS`},
			path:    map[string]string{"bash.exe": wsl},
			wantErr: "no bash found",
		},
		{
			name:    "nothing at all",
			wantErr: "install Git for Windows",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := bashLookup{
				getenv: func(k string) string { return tt.env[k] },
				lookPath: func(name string) (string, error) {
					if p, ok := tt.path[name]; ok {
						return p, nil
					}
					return "", errors.New("not found")
				},
				isFile: func(p string) bool {
					for _, f := range tt.files {
						if f == p {
							return true
						}
					}
					return false
				},
			}
			got, err := findBash(l)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("findBash = %q, %v; want an error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("findBash = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
