// Package deps pins dependencies while the packages that use them are being written.
// TODO: delete once every dependency is imported by real code.
package deps

import (
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/shirou/gopsutil/v4/cpu"
	_ "github.com/shirou/gopsutil/v4/disk"
	_ "github.com/shirou/gopsutil/v4/load"
	_ "github.com/shirou/gopsutil/v4/mem"
	_ "github.com/shirou/gopsutil/v4/net"
	_ "github.com/shirou/gopsutil/v4/process"
)
