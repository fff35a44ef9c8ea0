// The depth limit: a GraphQL validation rule added to gqlgen's default rules. gqlgen has
// no depth limit of its own (its extension.ComplexityLimit counts cost, not depth), so
// this counts depth as graphql-depth-limit (the Node servers' limit) does: a top-level
// field is depth 0, each selection set one deeper, fragments flattened into the place they
// are spread, fields starting with "__" (introspection) not descended into. A document
// with an operation deeper than the limit fails validation with graphql-depth-limit's
// message. As a validation rule it runs when a document is parsed, and the result is
// cached with the document in gqlgen's query cache (a rejected document is not cached, so
// it is checked again each time it is sent).
package main

import (
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator/core"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// depthLimitRules returns gqlgen's default validation rules plus the depth limit, for
// handler.Server.SetValidationRulesFn (called for every document parsed).
func depthLimitRules(limit int) func() *rules.Rules {
	rule := depthLimitRule(limit)
	return func() *rules.Rules {
		r := rules.NewDefaultRules()
		r.AddRule(rule.Name, rule.RuleFunc)
		return r
	}
}

func depthLimitRule(limit int) core.Rule {
	return core.Rule{
		Name: "DepthLimit",
		RuleFunc: func(observers *core.Events, addError core.AddErrFunc) {
			observers.OnOperation(func(walker *core.Walker, op *ast.OperationDefinition) {
				d := depthCounter{fragments: walker.Document.Fragments, memo: map[string]int{}, visiting: map[string]bool{}}
				if d.selectionSet(op.SelectionSet) > limit {
					addError(
						core.Message("'%s' exceeds maximum operation depth of %d", op.Name, limit),
						core.At(op.Position),
					)
				}
			})
		},
	}
}

// depthCounter measures the depth of the deepest field under a selection set, the top
// level counting 0. Each fragment is measured once (its depth does not depend on where it
// is spread), so a document spreading fragments many times costs its size, not more.
type depthCounter struct {
	fragments ast.FragmentDefinitionList
	memo      map[string]int
	// visiting guards against fragment cycles, which NoFragmentCycles (run in the same
	// pass) reports; here a cycle simply adds no depth.
	visiting map[string]bool
}

func (d *depthCounter) selectionSet(set ast.SelectionSet) int {
	deepest := 0
	for _, sel := range set {
		var depth int
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") || len(s.SelectionSet) == 0 {
				continue // a leaf (or introspection) is at its own level: depth 0 here
			}
			depth = 1 + d.selectionSet(s.SelectionSet)
		case *ast.InlineFragment:
			depth = d.selectionSet(s.SelectionSet)
		case *ast.FragmentSpread:
			depth = d.fragment(s.Name)
		}
		deepest = max(deepest, depth)
	}
	return deepest
}

func (d *depthCounter) fragment(name string) int {
	if depth, ok := d.memo[name]; ok {
		return depth
	}
	def := d.fragments.ForName(name)
	if def == nil || d.visiting[name] {
		return 0 // unknown fragments and cycles are other rules' errors
	}
	d.visiting[name] = true
	depth := d.selectionSet(def.SelectionSet)
	delete(d.visiting, name)
	d.memo[name] = depth
	return depth
}
