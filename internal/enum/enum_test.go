package enum

import "testing"

type color int

var colorNames = []string{"red", "green", "blue"}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    color
		wantErr string
	}{
		{"red", 0, ""},
		{" Blue\t", 2, ""},
		{"GREEN", 1, ""},
		{"violet", 0, `color "violet": unknown (want red, green or blue)`},
		{"", 0, `color "": unknown (want red, green or blue)`},
	} {
		got, err := Parse[color]("color", tc.in, colorNames...)
		switch {
		case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
			t.Errorf("Parse(%q) error = %v, want %q", tc.in, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("Parse(%q) = %d, %v, want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestName(t *testing.T) {
	for _, tc := range []struct {
		v    int
		want string
	}{{0, "red"}, {2, "blue"}, {3, "color(3)"}, {-1, "color(-1)"}} {
		if got := Name("color", tc.v, colorNames...); got != tc.want {
			t.Errorf("Name(%d) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestOrList(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a or b"},
		{[]string{"a", "b", "c"}, "a, b or c"},
	} {
		if got := OrList(tc.names); got != tc.want {
			t.Errorf("OrList(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}
