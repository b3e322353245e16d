package charset

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/encoding/htmlindex"
)

// TestLookupMatchesHTMLIndex: the index toolhost keeps here (htmlindex.go)
// answers every label, in any case and with surrounding space, as x/text's
// htmlindex does, and knows no label it does not.
func TestLookupMatchesHTMLIndex(t *testing.T) {
	if !slices.IsSortedFunc(labels, func(a, b labelIndex) int { return strings.Compare(a.label, b.label) }) {
		t.Fatal("the labels are not sorted: lookupLabel's binary search misses some")
	}
	var tried []string
	for _, l := range labels {
		tried = append(tried, l.label, strings.ToUpper(l.label), " \t"+l.label+"\n ")
	}
	tried = append(tried, "", " ", "utf8x", "latin", "zzz", "utf-8\x00", "a")
	for _, label := range tried {
		e, name, ok := lookupLabel(label)
		want, err := htmlindex.Get(label)
		if (err == nil) != ok {
			t.Errorf("%q: found %v here, x/text's htmlindex: %v", label, ok, err)
			continue
		}
		if !ok {
			continue
		}
		wantName, err := htmlindex.Name(want)
		if err != nil {
			t.Fatalf("%q: x/text's htmlindex has no name for its own encoding: %v", label, err)
		}
		if e != want || name != wantName {
			t.Errorf("%q: %v %q here, %v %q in x/text's htmlindex", label, e, name, want, wantName)
		}
	}
	if len(labels) < 200 {
		t.Errorf("%d labels; the WHATWG standard has over 200", len(labels))
	}
}
