package instrument

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docRow is a row of docs/report.md's table: a key, the members of an
// object key, its unit and when it is null.
type docRow struct {
	key      string
	members  []string
	unit     string
	nullWhen string
}

var docRowRE = regexp.MustCompile("^\\| `([a-z0-9_]+)(?: \\{([a-z0-9_, ]+)\\})?` \\| ([^|]+) \\| [^|]+ \\| ([^|]+) \\|$")

// readReportDoc reads the table of every report key in docs/report.md.
func readReportDoc(t *testing.T, path string) []docRow {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []docRow
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		m := docRowRE.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("%s: a row not of the form | `key {members}` | unit | source | null when |: %s", path, line)
			continue
		}
		r := docRow{key: m[1], unit: strings.TrimSpace(m[3]), nullWhen: strings.TrimSpace(m[4])}
		if m[2] != "" {
			r.members = strings.Split(m[2], ", ")
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no table of keys", path)
	}
	return rows
}

// reportSchema is the report's keys, from Report's json tags, with the
// members of each object key (from its type's tags, or from what its
// MarshalJSON writes) and whether the key holds numbers.
func reportSchema(t *testing.T) (keys []string, members map[string][]string, numeric map[string]bool) {
	t.Helper()
	members, numeric = map[string][]string{}, map[string]bool{}
	marshaler := reflect.TypeFor[json.Marshaler]()
	for f := range reflect.TypeFor[reportKeys]().Fields() {
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if key == "-" {
			continue
		}
		keys = append(keys, key)
		typ := f.Type
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		switch {
		case typ.Implements(marshaler): // a quantile set: numbers
			data, err := json.Marshal(reflect.New(typ).Elem().Interface())
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]float64
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatalf("%s: %s", key, data)
			}
			for k := range m {
				members[key] = append(members[key], k)
			}
			numeric[key] = true
		case typ.Kind() == reflect.Struct:
			numeric[key] = true
			for sf := range typ.Fields() {
				k, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
				members[key] = append(members[key], k)
				if !isNumber(sf.Type.Kind()) {
					numeric[key] = false
				}
			}
		default:
			numeric[key] = isNumber(typ.Kind())
		}
	}
	return keys, members, numeric
}

func isNumber(k reflect.Kind) bool {
	return reflect.Int <= k && k <= reflect.Float64
}

// unitSuffix is how a key of unit ends: a short unit (s, ms, m, Hz) after
// an underscore, a longer one (frames, ticks, fraction, fps) as it is.
func unitSuffix(unit string) string {
	u := strings.ToLower(unit)
	if len(u) <= 2 {
		return "_" + u
	}
	return u
}

// TestReportTableMatchesTheType holds docs/report.md's table and Report to
// each other: the same keys both ways, the same members of each object,
// a unit for every key that holds numbers and none for the others, and
// every number's key ending in its unit.
func TestReportTableMatchesTheType(t *testing.T) {
	checkReportDoc(t, readReportDoc(t, "../../../docs/report.md"))
}

func checkReportDoc(t *testing.T, rows []docRow) {
	keys, members, numeric := reportSchema(t)
	documented := map[string]docRow{}
	for _, r := range rows {
		if _, dup := documented[r.key]; dup {
			t.Errorf("docs/report.md: %s twice", r.key)
		}
		documented[r.key] = r
	}
	for _, k := range keys {
		r, ok := documented[k]
		if !ok {
			t.Errorf("docs/report.md lacks the report's key %s", k)
			continue
		}
		want, got := slices.Sorted(slices.Values(members[k])), slices.Sorted(slices.Values(r.members))
		if !slices.Equal(want, got) {
			t.Errorf("docs/report.md: %s {%s}, the report writes {%s}", k, strings.Join(got, ", "), strings.Join(want, ", "))
		}
		switch {
		case numeric[k] && r.unit == "—":
			t.Errorf("docs/report.md: %s holds numbers and has no unit", k)
		case !numeric[k] && r.unit != "—":
			t.Errorf("docs/report.md: %s holds no number, and has the unit %q", k, r.unit)
		case numeric[k] && !strings.HasSuffix(k, unitSuffix(r.unit)):
			t.Errorf("report key %s does not end in its unit, %s", k, r.unit)
		}
		if r.nullWhen == "" {
			t.Errorf("docs/report.md: %s does not say when it is null", k)
		}
	}
	for _, r := range rows {
		if !slices.Contains(keys, r.key) {
			t.Errorf("docs/report.md documents %s, which the report does not write", r.key)
		}
	}
}
