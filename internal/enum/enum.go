// Package enum names the values of the project's small integer enums and reads the names back,
// for enums whose values 0, 1, 2, … are called by a fixed list of names.
package enum

import (
	"fmt"
	"strings"
)

// Name is the String of value v of the enum typeName whose values are called names: names[v],
// or "typeName(v)" when v is out of range.
func Name(typeName string, v int, names ...string) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typeName, v)
}

// Parse reads s, case-insensitively and without its surrounding white space, as one of names
// (written in lower case) and returns its index. An unknown s gets the error
// `<what> "s": unknown (want a, b or c)`.
func Parse[T ~int](what, s string, names ...string) (T, error) {
	key := strings.ToLower(strings.TrimSpace(s))
	for i, name := range names {
		if key == name {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("%s %q: unknown (want %s)", what, s, OrList(names))
}

// OrList joins names as "a", "a or b", "a, b or c".
func OrList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
