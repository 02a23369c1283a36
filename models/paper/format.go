package paper

import (
	"strconv"
	"strings"
)

// FormatValue formats one number of the given metric the way the paper prints it: accuracy with 2
// decimals ("79.34"), RMSE with 4 ("0.7003"), parameter counts in thousands ("184k"), iteration
// times with 1 decimal and a unit ("14.3 ms"), and Table 9's hyperparameters in their shortest
// form with at least one decimal ("0.25", "-1.0"). Other metrics use the shortest form ('g').
func FormatValue(metric string, v float64) string {
	switch metric {
	case MetricAccuracy:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case MetricRMSE:
		return strconv.FormatFloat(v, 'f', 4, 64)
	case MetricParams:
		return strconv.FormatFloat(v/1000, 'f', 0, 64) + "k"
	case MetricIterTime:
		return strconv.FormatFloat(v, 'f', 1, 64) + " ms"
	case MetricMu0, MetricLogSigma0, MetricSigmaPrior:
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.ContainsAny(s, ".eEnN") {
			s += ".0"
		}
		return s
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// FormatMeanStd formats "mean ± std" with FormatValue's precision for the metric, or the mean
// alone when hasStd is false. A unit goes once, at the end: "14.3 ± 0.4 ms", "184k ± 2k".
func FormatMeanStd(metric string, mean, std float64, hasStd bool) string {
	m := FormatValue(metric, mean)
	if !hasStd {
		return m
	}
	s := FormatValue(metric, std)
	if metric == MetricIterTime {
		const unit = " ms"
		return strings.TrimSuffix(m, unit) + " ± " + strings.TrimSuffix(s, unit) + unit
	}
	return m + " ± " + s
}
