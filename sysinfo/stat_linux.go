package sysinfo

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// statDev stats path on this host: the device number of its file system and the path with its
// symbolic links resolved.
func statDev(path string) (string, string, error) {
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", "", err
	}
	var st unix.Stat_t
	if err := unix.Stat(resolved, &st); err != nil {
		return "", "", fmt.Errorf("stat %s: %w", resolved, err)
	}
	dev := uint64(st.Dev) //nolint:unconvert // its type differs between architectures
	return fmt.Sprintf("%d:%d", unix.Major(dev), unix.Minor(dev)), resolved, nil
}
