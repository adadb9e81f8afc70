module github.com/candor-bench/candor

go 1.26.8
