package search

import "fmt"

// maxGlobAlternatives caps how many brace combinations one glob may spell
// ("*.{ts,tsx}" spells 2, "{src,lib}/**/*.{ts,js}" 4). doublestar tries the
// alternatives of every group against every name by backtracking, so a
// pattern such as "{a,aa}{a,aa}…{a,aa}b" (2^40 combinations) keeps a core
// busy for hours on one file name, where no cancel can reach it. Real
// patterns stay far below the cap.
const maxGlobAlternatives = 128

// checkGlobCost refuses a glob whose braces spell more than
// maxGlobAlternatives combinations, with a message that says what to do.
// what names the pattern in the message ("pattern", "glob", ...).
func checkGlobCost(what, pattern string) error {
	if n := globAlternatives(pattern); n > maxGlobAlternatives {
		return fmt.Errorf("%s %q has too many brace alternatives (more than %d combinations; each file name would be tried against every one). Use fewer {a,b} groups, or several calls with simpler patterns", what, pattern, maxGlobAlternatives)
	}
	return nil
}

// globAlternatives counts the combinations a pattern's brace groups spell
// (a group contributes the sum of its alternatives' counts, groups in a
// row multiply), saturating just above maxGlobAlternatives. Brackets and
// backslash escapes are skipped like doublestar reads them; an unbalanced
// pattern is counted as far as it goes (ValidatePattern refuses it).
func globAlternatives(pattern string) int {
	n, _ := countSeq(pattern, 0, false)
	return n
}

// countSeq counts the combinations of the sequence starting at i, up to
// the end of the pattern, or, inside a group, up to the ',' or '}' that
// ends the alternative. It returns the count and where it stopped.
func countSeq(p string, i int, inGroup bool) (int, int) {
	product := 1
	for i < len(p) {
		switch p[i] {
		case '\\':
			i += 2
		case '[':
			i = skipClass(p, i)
		case ',', '}':
			if inGroup {
				return product, i
			}
			i++
		case '{':
			sum := 0
			i++
			for {
				n, next := countSeq(p, i, true)
				sum = saturate(sum + n)
				i = next
				if i >= len(p) || p[i] == '}' {
					i++
					break
				}
				i++ // the ','
			}
			product = saturate(product * sum)
		default:
			i++
		}
	}
	return product, i
}

// skipClass returns the index after the character class that opens at i
// ("[...]", where a ']' right after "[" or "[!" / "[^" is a member).
func skipClass(p string, i int) int {
	j := i + 1
	if j < len(p) && (p[j] == '!' || p[j] == '^') {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for j < len(p) {
		switch p[j] {
		case '\\':
			j += 2
			continue
		case ']':
			return j + 1
		}
		j++
	}
	return i + 1 // not a class: '[' is a literal
}

func saturate(n int) int {
	if n > maxGlobAlternatives+1 {
		return maxGlobAlternatives + 1
	}
	return n
}
