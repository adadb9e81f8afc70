package dbgen

func rowsOf(t Table, sf float64) int64 { return 0 }

func generate(t Table, sf float64, part, parts int, emit func(row []any) error) error {
	return errNotYet
}

func refreshInsert(sf float64, set int, emit func(t Table, row []any) error) error { return errNotYet }

func refreshDelete(sf float64, set int) []int64 { return nil }
