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
