package shell

import "testing"

func TestLooksSecret(t *testing.T) {
	tests := []struct {
		name, value string
		want        bool
	}{
		{"GITHUB_TOKEN", "x", true},
		{"AWS_SECRET_ACCESS_KEY", "x", true},
		{"DB_PASSWORD", "x", true},
		{"DB_PASS", "x", true},
		{"MY_PASSWD", "x", true},
		{"MYSQL_PWD", "x", true},
		{"GH_PAT", "x", true},
		{"CREDENTIALS", "x", true},
		{"GOOGLE_APPLICATION_CREDENTIALS", "/k.json", true},
		{"SENTRY_DSN", "https://abc@o1.ingest.sentry.io/1", true},
		{"NPM_CONFIG__AUTH", "x", true},
		{"DATABASE_URL", "postgres://app:s3cret@db:5432/app", true},
		{"REDIS", "redis://:pw@cache:6379", true},
		{"DATABASE_URL", "postgres://app@db:5432/app", false},
		{"PATH", "/usr/bin", false},
		{"PWD", "/src", false},
		{"OLDPWD", "/", false},
		{"SSH_AUTH_SOCK", "/tmp/agent", false},
		{"GIT_AUTHOR_NAME", "a", false},
		{"KEYBOARD_LAYOUT", "us", false},
		{"HOME", "/root", false},
		{"HOMEPAGE", "https://example.com/a@b", false},
	}
	for _, tt := range tests {
		if got := looksSecret(tt.name, tt.value); got != tt.want {
			t.Errorf("looksSecret(%s=%s) = %v, want %v", tt.name, tt.value, got, tt.want)
		}
	}
}
