package cgroup

import "strconv"

func quote(s string) string { return strconv.Quote(s) }

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
