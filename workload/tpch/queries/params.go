package queries

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/gen"
)

// The value lists the substitution rules draw from (clause 4.2.2.13 and 4.2.3: the lists dbgen's
// dists.dss defines for N_NAME, R_NAME, P_TYPE, P_CONTAINER, C_MKTSEGMENT, L_SHIPMODE, P_NAME).
var (
	regionNames = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}
	// nations in N_NATIONKEY order, each with its N_REGIONKEY (clause 4.2.3).
	nations = []struct {
		name   string
		region int
	}{
		{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4},
		{"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2},
		{"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0},
		{"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
		{"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
	}
	typeSyllable1      = []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"}
	typeSyllable2      = []string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"}
	typeSyllable3      = []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"}
	containerSyllable1 = []string{"SM", "LG", "MED", "JUMBO", "WRAP"}
	containerSyllable2 = []string{"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"}
	segments           = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"}
	shipModes          = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	q13Word1           = []string{"special", "pending", "unusual", "express"}
	q13Word2           = []string{"packages", "requests", "accounts", "deposits"}
	// colors are the 92 words P_NAME is made of (clause 4.2.3).
	colors = strings.Fields(`almond antique aquamarine azure beige bisque black blanched blue blush
		brown burlywood burnished chartreuse chiffon chocolate coral cornflower cornsilk cream cyan dark
		deep dim dodger drab firebrick floral forest frosted gainsboro ghost goldenrod green grey
		honeydew hot indian ivory khaki lace lavender lawn lemon light lime linen magenta maroon medium
		metallic midnight mint misty moccasin navajo navy olive orange orchid pale papaya peach peru
		pink plum powder puff purple red rose rosy royal saddle salmon sandy seashell sienna sky slate
		smoke snow spring steel tan thistle tomato turquoise violet wheat white yellow`)
)

// String gives p as the report shows it: "15, BRASS, EUROPE".
func (p Params) String() string { return strings.Join(p, ", ") }

func pick(r *gen.Rand, list []string) string { return list[r.IntRange(0, len(list)-1)] }

// brand is Brand#MN with M and N in [1, 5] (clause 2.4.16.3, 2.4.17.3, 2.4.19.3).
func brand(r *gen.Rand) string { return fmt.Sprintf("Brand#%d%d", r.IntRange(1, 5), r.IntRange(1, 5)) }

// monthStart is the first day of the month that is n months after January 1993.
func monthStart(n int) string {
	return time.Date(1993, time.January+time.Month(n), 1, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
}

// yearStart is January 1 of a year in [1993, 1997].
func yearStart(r *gen.Rand) string { return fmt.Sprintf("%d-01-01", r.IntRange(1993, 1997)) }

// distinctInts draws n different integers in [lo, hi].
func distinctInts(r *gen.Rand, n, lo, hi int) []string {
	seen := map[int]bool{}
	out := make([]string, 0, n)
	for len(out) < n {
		v := r.IntRange(lo, hi)
		if !seen[v] {
			seen[v] = true
			out = append(out, strconv.Itoa(v))
		}
	}
	return out
}

// fraction is Q11's FRACTION: 0.0001/SF (clause 2.4.11.3), written as qgen does ("%11.10f").
func fraction(sf float64) string { return strconv.FormatFloat(0.0001/sf, 'f', 10, 64) }

// draw applies clause 2.4.q.3's substitution rules.
func draw(q int, r *gen.Rand, sf float64) Params {
	switch q {
	case 1: // 2.4.1.3: DELTA in [60, 120]
		return Params{strconv.Itoa(r.IntRange(60, 120))}
	case 2: // 2.4.2.3: SIZE in [1, 50]; TYPE a syllable 3; REGION an R_NAME
		return Params{strconv.Itoa(r.IntRange(1, 50)), pick(r, typeSyllable3), pick(r, regionNames)}
	case 3: // 2.4.3.3: SEGMENT; DATE a day in [1995-03-01, 1995-03-31]
		return Params{pick(r, segments), fmt.Sprintf("1995-03-%02d", r.IntRange(1, 31))}
	case 4: // 2.4.4.3: DATE the first day of a month in [1993-01, 1997-10]
		return Params{monthStart(r.IntRange(0, 4*12+9))}
	case 5: // 2.4.5.3: REGION; DATE January 1 of a year in [1993, 1997]
		return Params{pick(r, regionNames), yearStart(r)}
	case 6: // 2.4.6.3: DATE January 1 of [1993, 1997]; DISCOUNT in [0.02, 0.09]; QUANTITY in [24, 25]
		return Params{yearStart(r), fmt.Sprintf("0.%02d", r.IntRange(2, 9)), strconv.Itoa(r.IntRange(24, 25))}
	case 7: // 2.4.7.3: NATION1, NATION2 two different N_NAMEs
		i := r.IntRange(0, len(nations)-1)
		j := r.IntRange(0, len(nations)-2)
		if j >= i {
			j++
		}
		return Params{nations[i].name, nations[j].name}
	case 8: // 2.4.8.3: NATION; REGION its region; TYPE a 3-syllable type
		n := nations[r.IntRange(0, len(nations)-1)]
		return Params{n.name, regionNames[n.region], pick(r, typeSyllable1) + " " + pick(r, typeSyllable2) + " " + pick(r, typeSyllable3)}
	case 9: // 2.4.9.3: COLOR a P_NAME word
		return Params{pick(r, colors)}
	case 10: // 2.4.10.3: DATE the first day of a month in [1993-02, 1995-01]
		return Params{monthStart(r.IntRange(1, 24))}
	case 11: // 2.4.11.3: NATION; FRACTION 0.0001/SF
		return Params{nations[r.IntRange(0, len(nations)-1)].name, fraction(sf)}
	case 12: // 2.4.12.3: SHIPMODE1, SHIPMODE2 different; DATE January 1 of [1993, 1997]
		i := r.IntRange(0, len(shipModes)-1)
		j := r.IntRange(0, len(shipModes)-2)
		if j >= i {
			j++
		}
		return Params{shipModes[i], shipModes[j], yearStart(r)}
	case 13: // 2.4.13.3: WORD1, WORD2
		return Params{pick(r, q13Word1), pick(r, q13Word2)}
	case 14: // 2.4.14.3: DATE the first day of a month in [1993, 1997]
		return Params{monthStart(r.IntRange(0, 5*12-1))}
	case 15: // 2.4.15.3: DATE the first day of a month in [1993-01, 1997-10]
		return Params{monthStart(r.IntRange(0, 4*12+9))}
	case 16: // 2.4.16.3: BRAND; TYPE the first 2 syllables of a type; SIZE1..8 different in [1, 50]
		p := Params{brand(r), pick(r, typeSyllable1) + " " + pick(r, typeSyllable2)}
		return append(p, distinctInts(r, 8, 1, 50)...)
	case 17: // 2.4.17.3: BRAND; CONTAINER syllable 1 + syllable 2
		return Params{brand(r), pick(r, containerSyllable1) + " " + pick(r, containerSyllable2)}
	case 18: // 2.4.18.3: QUANTITY in [312, 315]
		return Params{strconv.Itoa(r.IntRange(312, 315))}
	case 19: // 2.4.19.3: QUANTITY1 in [1, 10], QUANTITY2 in [10, 20], QUANTITY3 in [20, 30]; BRAND1..3
		return Params{strconv.Itoa(r.IntRange(1, 10)), strconv.Itoa(r.IntRange(10, 20)), strconv.Itoa(r.IntRange(20, 30)),
			brand(r), brand(r), brand(r)}
	case 20: // 2.4.20.3: COLOR; DATE January 1 of [1993, 1997]; NATION
		return Params{pick(r, colors), yearStart(r), nations[r.IntRange(0, len(nations)-1)].name}
	case 21: // 2.4.21.3: NATION
		return Params{nations[r.IntRange(0, len(nations)-1)].name}
	case 22: // 2.4.22.3: I1..I7 different country codes in [10, 34] (clause 4.2.2.9: nation key + 10)
		return Params(distinctInts(r, 7, 10, 34))
	}
	panic("unreachable")
}

// validationParams are clause 2.4.q.4's values (Q11's FRACTION is computed for the scale factor).
var validationParams = [Count + 1]Params{
	1:  {"90"},
	2:  {"15", "BRASS", "EUROPE"},
	3:  {"BUILDING", "1995-03-15"},
	4:  {"1993-07-01"},
	5:  {"ASIA", "1994-01-01"},
	6:  {"1994-01-01", "0.06", "24"},
	7:  {"FRANCE", "GERMANY"},
	8:  {"BRAZIL", "AMERICA", "ECONOMY ANODIZED STEEL"},
	9:  {"green"},
	10: {"1993-10-01"},
	11: {"GERMANY", ""},
	12: {"MAIL", "SHIP", "1994-01-01"},
	13: {"special", "requests"},
	14: {"1995-09-01"},
	15: {"1996-01-01"},
	16: {"Brand#45", "MEDIUM POLISHED", "49", "14", "23", "45", "19", "3", "36", "9"},
	17: {"Brand#23", "MED BOX"},
	18: {"300"},
	19: {"1", "10", "20", "Brand#12", "Brand#23", "Brand#34"},
	20: {"forest", "1994-01-01", "CANADA"},
	21: {"SAUDI ARABIA"},
	22: {"13", "31", "23", "29", "30", "18", "17"},
}

func validation(q int, sf float64) Params {
	p := append(Params(nil), validationParams[q]...)
	if q == 11 {
		p[1] = fraction(sf)
	}
	return p
}

// paramCount is how many parameters each query takes.
func paramCount(q int) int { return len(validationParams[q]) }
