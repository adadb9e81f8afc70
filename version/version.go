// Package version is candor's own version, stored in every result (full disclosure).
package version

import "runtime/debug"

// Version is set at build time with -ldflags "-X github.com/candor-bench/candor/version.Version=v1.2.3";
// otherwise it is derived from the build information (module version or VCS revision).
var Version = ""

// String returns the version of this build.
func String() string {
	if Version != "" {
		return Version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel-" + rev
}
