package stagnb

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
)

// DistKind names a family of noise distributions.
type DistKind int

const (
	// DistNone draws no noise: every weight is 1.
	DistNone DistKind = iota
	// DistNormal draws Normal(μ, σ), σ being the standard deviation (torch's "scale").
	DistNormal
	// DistUniform draws Uniform(a, b).
	DistUniform
	// DistBernoulli keeps a weight (1) with probability 1−p and drops it (0) with probability p,
	// p being the drop rate; with Rescale the kept weights are 1/(1−p) so that E[z] = 1.
	DistBernoulli
	// DistGiven draws μ + σ·ε with ε ~ Normal(0, 1), where μ and σ are graph nodes (learned or
	// amortised variational parameters); the draw is reparameterised so gradients reach μ and σ.
	DistGiven
)

// Distribution is the law of each noise weight z.
// Build it with NoNoise, Normal, Uniform, Bernoulli, Given or ParseDistribution.
type Distribution struct {
	// Kind says which law this is, and which of the fields below it reads.
	Kind DistKind
	// Mu and Sigma are the mean and standard deviation of DistNormal.
	Mu, Sigma float64
	// Low and High bound DistUniform.
	Low, High float64
	// DropRate is DistBernoulli's p, and Rescale divides kept weights by 1−p.
	DropRate float64
	Rescale  bool
	// MuNode and SigmaNode are DistGiven's parameters, broadcastable to the noise shape.
	MuNode, SigmaNode *Node
}

// NoNoise is the deterministic "distribution": z = 1.
func NoNoise() Distribution { return Distribution{Kind: DistNone} }

// Normal returns Normal(mu, sigma); sigma is the standard deviation and must be ≥ 0.
func Normal(mu, sigma float64) (Distribution, error) {
	d := Distribution{Kind: DistNormal, Mu: mu, Sigma: sigma}
	return d, d.Validate()
}

// Uniform returns Uniform(low, high); it needs low ≤ high.
func Uniform(low, high float64) (Distribution, error) {
	d := Distribution{Kind: DistUniform, Low: low, High: high}
	return d, d.Validate()
}

// Bernoulli returns the drop distribution with drop rate p ∈ [0, 1): z = 0 with probability p,
// else 1, or 1/(1−p) when rescale is set.
func Bernoulli(p float64, rescale bool) (Distribution, error) {
	d := Distribution{Kind: DistBernoulli, DropRate: p, Rescale: rescale}
	return d, d.Validate()
}

// Given returns the reparameterised Normal(mu, sigma) whose parameters are graph nodes,
// broadcastable to the noise shape (a scalar, `[1, C]`, `[E, 1]` or `[E, C]`).
func Given(mu, sigma *Node) Distribution {
	if mu == nil || sigma == nil {
		exceptions.Panicf("stagnb.Given: mu and sigma must be nodes, got mu=%v sigma=%v", mu, sigma)
	}
	return Distribution{Kind: DistGiven, MuNode: mu, SigmaNode: sigma}
}

// Validate returns an error naming the parameter that is out of range.
func (d Distribution) Validate() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	switch d.Kind {
	case DistNone, DistGiven:
	case DistNormal:
		if bad(d.Mu) {
			return fmt.Errorf("normal: mean μ=%g must be finite", d.Mu)
		}
		if bad(d.Sigma) || d.Sigma < 0 {
			return fmt.Errorf("normal: standard deviation σ=%g must be finite and ≥ 0", d.Sigma)
		}
	case DistUniform:
		if bad(d.Low) || bad(d.High) {
			return fmt.Errorf("uniform: bounds a=%g, b=%g must be finite", d.Low, d.High)
		}
		if d.High < d.Low {
			return fmt.Errorf("uniform: upper bound b=%g must be ≥ lower bound a=%g", d.High, d.Low)
		}
	case DistBernoulli:
		if !(d.DropRate >= 0 && d.DropRate < 1) {
			return fmt.Errorf("bernoulli: drop rate p=%g must be in [0, 1)", d.DropRate)
		}
	default:
		return fmt.Errorf("unknown distribution kind %d", d.Kind)
	}
	return nil
}

// ParseDistribution reads a distribution written as one of
//
//	none | normal(μ, σ) | uniform(a, b) | bernoulli(p) | bernoulli(p, rescale)
//
// (σ is the standard deviation, p the drop rate). Errors name the parameter.
func ParseDistribution(s string) (Distribution, error) {
	s = strings.ToLower(strings.ReplaceAll(s, " ", ""))
	name, args := s, []float64(nil)
	var rescale bool
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return Distribution{}, fmt.Errorf("noise distribution %q: missing closing parenthesis", s)
		}
		name = s[:i]
		for _, a := range strings.Split(s[i+1:len(s)-1], ",") {
			if name == "bernoulli" && a == "rescale" {
				rescale = true
				continue
			}
			v, err := strconv.ParseFloat(a, 64)
			if err != nil {
				return Distribution{}, fmt.Errorf("noise distribution %q: parameter %q is not a number", s, a)
			}
			args = append(args, v)
		}
	}
	want := map[string]int{"none": 0, "normal": 2, "uniform": 2, "bernoulli": 1}
	n, ok := want[name]
	if !ok {
		return Distribution{}, fmt.Errorf("noise distribution %q: unknown name %q (want none, normal, uniform or bernoulli)", s, name)
	}
	if len(args) != n {
		return Distribution{}, fmt.Errorf("noise distribution %q: %s takes %d parameters, got %d", s, name, n, len(args))
	}
	switch name {
	case "normal":
		return Normal(args[0], args[1])
	case "uniform":
		return Uniform(args[0], args[1])
	case "bernoulli":
		return Bernoulli(args[0], rescale)
	}
	return NoNoise(), nil
}

// String writes the distribution in the form ParseDistribution reads.
func (d Distribution) String() string {
	switch d.Kind {
	case DistNormal:
		return fmt.Sprintf("normal(%g,%g)", d.Mu, d.Sigma)
	case DistUniform:
		return fmt.Sprintf("uniform(%g,%g)", d.Low, d.High)
	case DistBernoulli:
		if d.Rescale {
			return fmt.Sprintf("bernoulli(%g,rescale)", d.DropRate)
		}
		return fmt.Sprintf("bernoulli(%g)", d.DropRate)
	case DistGiven:
		return "given"
	}
	return "none"
}

// IsNone reports whether the distribution draws nothing (z = 1 always).
func (d Distribution) IsNone() bool {
	switch d.Kind {
	case DistNone:
		return true
	case DistNormal:
		return d.Sigma == 0 && d.Mu == 1
	case DistUniform:
		return d.Low == 1 && d.High == 1
	case DistBernoulli:
		return d.DropRate == 0
	}
	return false
}

// Mean is E[z] (not defined for DistGiven, which returns NaN).
func (d Distribution) Mean() float64 {
	switch d.Kind {
	case DistNone:
		return 1
	case DistNormal:
		return d.Mu
	case DistUniform:
		return (d.Low + d.High) / 2
	case DistBernoulli:
		if d.Rescale {
			return 1
		}
		return 1 - d.DropRate
	}
	return math.NaN()
}

// Variance is Var[z] (not defined for DistGiven, which returns NaN).
func (d Distribution) Variance() float64 {
	switch d.Kind {
	case DistNone:
		return 0
	case DistNormal:
		return d.Sigma * d.Sigma
	case DistUniform:
		w := d.High - d.Low
		return w * w / 12
	case DistBernoulli:
		p := d.DropRate
		if d.Rescale {
			return p / (1 - p)
		}
		return p * (1 - p)
	}
	return math.NaN()
}

// Sample draws noise of the given shape through the store's RNG (so a seed reproduces it).
// For DistGiven the result has the broadcast shape of MuNode, SigmaNode and shape.
func (d Distribution) Sample(scope *model.Scope, g *Graph, shape shapes.Shape) *Node {
	dtype := shape.DType
	switch d.Kind {
	case DistNone:
		return Ones(g, shape)
	case DistNormal:
		return AddScalar(MulScalar(StandardNormal(scope, g, shape), d.Sigma), d.Mu)
	case DistUniform:
		u := scope.RandomUniform(g, shape)
		return AddScalar(MulScalar(u, d.High-d.Low), d.Low)
	case DistBernoulli:
		keep := GreaterOrEqual(scope.RandomUniform(g, shape), Scalar(g, dtype, d.DropRate))
		value := 1.0
		if d.Rescale {
			value = 1 / (1 - d.DropRate)
		}
		return Where(keep, MulScalar(Ones(g, shape), value), Zeros(g, shape))
	case DistGiven:
		mu := ConvertDType(d.MuNode, dtype)
		sigma := ConvertDType(d.SigmaNode, dtype)
		return Add(mu, Mul(sigma, StandardNormal(scope, g, shape)))
	}
	exceptions.Panicf("stagnb.Distribution.Sample: unknown distribution kind %d", d.Kind)
	return nil
}

// StandardNormal draws Normal(0, 1) values of the given shape with the Box–Muller transform,
// using both of its outputs (cos and sin), from the store's RNG: for u1, u2 ~ U[0, 1),
// r = √(−2 ln(1 − u1)) and θ = 2π·u2, the pair (r·cos θ, r·sin θ) is two independent standard
// normals. It needs half the uniform draws and transcendental calls of graph.RandomNormal, and
// computes cos θ and sin θ with polynomials (see sinCos2Pi).
func StandardNormal(scope *model.Scope, g *Graph, shape shapes.Shape) *Node {
	n := shape.Size()
	if n == 0 {
		return Zeros(g, shape)
	}
	half := (n + 1) / 2
	dtype := shape.DType
	if !dtype.IsFloat() {
		exceptions.Panicf("stagnb.StandardNormal: dtype must be a float, got %s", dtype)
	}
	u1 := scope.RandomUniform(g, shapes.Make(dtype, half))
	u2 := scope.RandomUniform(g, shapes.Make(dtype, half))
	// RandomUniform draws from [0, 1): 1−u1 is in (0, 1], so the log is finite.
	r := Sqrt(MulScalar(Log(OneMinus(u1)), -2))
	cos, sin := sinCos2Pi(u2)
	z := Concatenate([]*Node{Mul(r, cos), Mul(r, sin)}, 0)
	if 2*half != n {
		z = Slice(z, AxisRange(0, n))
	}
	return Reshape(z, shape.Dimensions...)
}

// sinCos2Pi returns cos(2πu) and sin(2πu) for u in [0, 1), computed with polynomials and
// products only: the pure-Go backend evaluates Sin and Cos with one math.Sin/math.Cos call per
// element (about 21 ns each on a 2-core AVX2 host), 20 times the cost of a Mul. With
// φ = πu − π/2 in [−π/2, π/2), 2πu = 2φ + π, so cos 2πu = sin²φ − cos²φ and
// sin 2πu = −2 sin φ cos φ, where sin φ and cos φ are their Taylor polynomials of degree 11
// and 12: on [−π/2, π/2] they are off by at most (π/2)¹³/13! ≈ 5.7e-8 and (π/2)¹⁴/14! ≈ 6.4e-9,
// below float32's resolution at 1.
func sinCos2Pi(u *Node) (cos, sin *Node) {
	phi := AddScalar(MulScalar(u, math.Pi), -math.Pi/2)
	p := Mul(phi, phi)
	// taylor returns Σ_k c_k p^k for c_k = (−1)^k / (2k + offset)!, k = 0 … terms−1, by Horner.
	taylor := func(offset, terms int) *Node {
		coef := make([]float64, terms)
		for k := range coef {
			coef[k] = 1 / factorial(2*k+offset)
			if k%2 == 1 {
				coef[k] = -coef[k]
			}
		}
		t := MulScalar(p, coef[terms-1])
		for k := terms - 2; k >= 1; k-- {
			t = Mul(AddScalar(t, coef[k]), p)
		}
		return AddScalar(t, coef[0])
	}
	sinPhi := Mul(phi, taylor(1, 6)) // φ − φ³/3! + … − φ¹¹/11!
	cosPhi := taylor(0, 7)           // 1 − φ²/2! + … + φ¹²/12!
	return Sub(Mul(sinPhi, sinPhi), Mul(cosPhi, cosPhi)), MulScalar(Mul(sinPhi, cosPhi), -2)
}

// factorial returns n! as a float64.
func factorial(n int) float64 {
	f := 1.0
	for i := 2; i <= n; i++ {
		f *= float64(i)
	}
	return f
}

// floatDType panics unless dtype is a float type.
func floatDType(fn string, dtype dtypes.DType) {
	if !dtype.IsFloat() {
		exceptions.Panicf("stagnb.%s: features must be a float type, got %s", fn, dtype)
	}
}
