/* SPDX-License-Identifier: MIT */
/* balance_ci.c: the statistics the balance report's modules share
 * (balance_int.h): Student's t quantile, the mean of per-group values
 * with its 95% interval (a worker's diagnostics go over with
 * cm_diags_append). One
 * file below balance.c, balance_heat.c and balance_part.c, so that none
 * of them uses another in a circle. */
#include <math.h>
#include "check/balance_int.h"

/* ---- intervals ---- */

/* The standard normal quantile (Acklam's rational approximation, relative
 * error below 1.2e-9), for 0 < p < 1. */
static double normal_quantile(double p)
{
	static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
		                    1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
		                    6.680131188771972e+01, -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
		                    -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
		                    3.754408661907416e+00 };
	double q, r;
	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		       ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	if (p > 1 - 0.02425)
		return -normal_quantile(1 - p);
	q = p - 0.5;
	r = q * q;
	return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
	       (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/* Student's t quantile with df degrees of freedom, from the normal one by
 * the Cornish-Fisher expansion (Abramowitz and Stegun 26.7.5): within
 * 1e-5 from df 30 on, which CM_BALANCE_MIN_GROUPS guarantees; rough
 * below. */
double cm__t_quantile(double p, double df)
{
	double z = normal_quantile(p), z2 = z * z;
	double g1 = (z2 + 1) * z / 4;
	double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
	double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
	double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
	return z + g1 / df + g2 / (df * df) + g3 / (df * df * df) + g4 / (df * df * df * df);
}

/* The mean of a per-group value x (its sum and sum of squares over n
 * groups), divided by scale, with the interval mean +- q * sd / sqrt(n).
 * Fewer than 2 groups: no interval (NAN). */
cm_interval cm__mean_interval_q(long long sum, long long sum_sq, long long n, double scale, double q)
{
	cm_interval v = { NAN, NAN, NAN };
	if (n < 1)
		return v;
	long double m = (long double)sum / n;
	v.value = (double)(m / scale);
	if (n < 2)
		return v;
	long double var = ((long double)sum_sq - m * (long double)sum) / (n - 1);
	double half = var > 0 ? q * (double)sqrtl(var / n) / scale : 0.0;
	v.lo = v.value - half;
	v.hi = v.value + half;
	return v;
}

double cm__t975(long long df)
{
	return df > 0 ? cm__t_quantile(0.975, (double)df) : 0;
}

cm_interval cm__mean_interval(long long sum, long long sum_sq, long long groups, double scale)
{
	return cm__mean_interval_q(sum, sum_sq, groups, scale, cm__t975(groups - 1));
}
