# sort.awk: msort(A, N) sorts A[1..N] in place, stably, by before(X, Y),
# which the program defines: true when X goes before Y.  A merge sort,
# O(N log N), so that a program sorts its own rows rather than start
# sort(1) (each process start is dear) with sort(1)'s keys written as
# before().  Compare strings as strings ((x "") < (y "")): two fields
# that look numeric would otherwise compare as numbers; awk compares
# strings byte by byte, as sort(1) does under LC_ALL=C.
function msort(a, n,    tmp) {
	_msort(a, tmp, 1, n)
}
function _msort(a, tmp, lo, hi,    mid, i, j, k) {
	if (hi <= lo)
		return
	mid = int((lo + hi) / 2)
	_msort(a, tmp, lo, mid)
	_msort(a, tmp, mid + 1, hi)
	i = lo; j = mid + 1; k = lo
	while (i <= mid && j <= hi)
		tmp[k++] = before(a[j], a[i]) ? a[j++] : a[i++]
	while (i <= mid)
		tmp[k++] = a[i++]
	while (j <= hi)
		tmp[k++] = a[j++]
	for (k = lo; k <= hi; k++)
		a[k] = tmp[k]
}

# ksort2(A, N, K1, K2): A[1..N] sorted in place, stably, by K1[A[i]],
# ties by K2[A[i]]: msort with that before() written out, no function
# call per comparison (the cost of sorting thousands of rows).  Each
# key compares as its values are: numbers as numbers, strings as
# strings.
function ksort2(a, n, k1, k2,    tmp) {
	_ksort2(a, tmp, 1, n, k1, k2)
}
function _ksort2(a, tmp, lo, hi, k1, k2,    mid, i, j, k, x, y, x1, y1) {
	if (hi <= lo)
		return
	mid = int((lo + hi) / 2)
	_ksort2(a, tmp, lo, mid, k1, k2)
	_ksort2(a, tmp, mid + 1, hi, k1, k2)
	# The heads of the halves (x, y) and their first keys in variables:
	# each step reads one element and its key.
	i = lo; j = mid + 1; k = lo
	x = a[j]; x1 = k1[x]; y = a[mid]; y1 = k1[y]
	if (x1 != y1 ? !(x1 < y1) : !(k2[x] < k2[y]))
		return	# in order already
	y = a[i]; y1 = k1[y]
	for (;;) {
		if (x1 != y1 ? x1 < y1 : k2[x] < k2[y]) {
			tmp[k++] = x
			if (++j > hi)
				break
			x = a[j]; x1 = k1[x]
		} else {
			tmp[k++] = y
			if (++i > mid)
				break
			y = a[i]; y1 = k1[y]
		}
	}
	# The rest of the left half goes last; the rest of the right one is
	# in place already.
	while (i <= mid)
		tmp[k++] = a[i++]
	for (i = lo; i < k; i++)
		a[i] = tmp[i]
}

# bsort2(A, N, K1, K2): A[1..N] as ksort2 sorts them, for numbers K1
# spread over a range (a module's thunk offsets): dealt into N buckets
# by K1 (every value of a bucket below those of the next; a bucket in
# the order of A), each bucket then sorted by ksort2.  About N steps
# for values spread evenly, N log N at worst.  Values that are no
# finite numbers ("nan", "inf" as printed) go to ksort2 whole.
function bsort2(a, n, k1, k2,    lo, hi, w, i, b, x, v, head, tail, nxt, bn, c, m, tmp) {
	if (n < 2)
		return
	lo = hi = k1[a[1]]
	for (i = 1; i <= n; i++) {
		v = k1[a[i]]
		if (index(v "", "n")) {
			ksort2(a, n, k1, k2)
			return
		}
		if (v < lo) lo = v
		if (v > hi) hi = v
	}
	# (one value, or a range too narrow to divide: ksort2 alone)
	if (!((w = (hi - lo) / n) > 0)) {
		ksort2(a, n, k1, k2)
		return
	}
	for (i = 1; i <= n; i++) {
		x = a[i]
		if ((b = int((k1[x] - lo) / w) + 1) > n)
			b = n
		if (bn[b]++) nxt[tail[b]] = x; else head[b] = x
		tail[b] = x
	}
	m = 0
	for (b = 1; b <= n; b++) {
		if (!(c = bn[b]))
			continue
		if (c == 1) {
			a[++m] = head[b]
			continue
		}
		x = head[b]
		for (i = 1; i <= c; i++) { tmp[i] = x; x = nxt[x] }
		ksort2(tmp, c, k1, k2)
		for (i = 1; i <= c; i++)
			a[++m] = tmp[i]
	}
}
