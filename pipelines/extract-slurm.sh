#!/bin/sh
#SBATCH --job-name=nsysjax-extract
#SBATCH --ntasks=1
# extract-slurm.sh: nsysjax-extract over the processes of a large run as a
# Slurm job array, then one merge job.  LIST names the inputs (one archive
# or export per line, in process order; absolute paths on a filesystem
# every node shares).  Task T of an array of N takes a contiguous share of
# LIST and extracts it into DIR/parts/<T, six digits>; the merge joins the
# parts in task order into DIR/frames: the same bytes as one
# `nsysjax-extract -o DIR/frames $(cat LIST)`.
#
#	jid=$(sbatch --parsable --array=0-63 --cpus-per-task=8 extract-slurm.sh DIR LIST)
#	sbatch --dependency=afterany:$jid extract-slurm.sh -m DIR LIST
#
# No CPU count is fixed here (one that a node lacks leaves the job pending
# forever, reason PartitionConfig): give the sbatch options your site
# needs on the command line (--cpus-per-task, --partition, --time,
# --mem).  A task runs one worker per CPU Slurm gave it:
# SLURM_CPUS_PER_TASK when set, else SLURM_CPUS_ON_NODE, else 1.  The
# merge (one process) needs one CPU.  afterany, not afterok: the merge
# then runs after a failed or cancelled task too, and names it (with
# afterok it would pend forever, reason DependencyNeverSatisfied).
#
# A task reads SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT.  Slurm runs
# a copy of this script, so nsysjax-extract is found on PATH (or in
# $NSYSJAX_BIN).
set -eu
PROG=extract-slurm.sh
die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 1; }
usage() {
	printf 'usage: %s DIR LIST     (a task of a job array)\n' "$PROG"
	printf '       %s -m DIR LIST  (the merge, after every task)\n' "$PROG"
}
[ -z "${NSYSJAX_BIN:-}" ] || PATH=$NSYSJAX_BIN:$PATH

MERGE=0
case ${1:-} in
-m) MERGE=1; shift ;;
-h) usage; exit 0 ;;
esac
[ $# -eq 2 ] || { usage >&2; exit 2; }
DIR=$1 LIST=$2
[ -r "$LIST" ] || die "$LIST: cannot read the list of inputs"
L=$(grep -c . "$LIST") || die "$LIST: no input in it"

# share T N: the first and last line (1-based) of task T's inputs; the
# first is past the last when T has none (more tasks than inputs).
share() {
	first=$(($1 * L / $2 + 1)) last=$((($1 + 1) * L / $2))
}

if [ "$MERGE" -eq 0 ]; then
	T=${SLURM_ARRAY_TASK_ID:?not a task of a Slurm job array}
	N=${SLURM_ARRAY_TASK_COUNT:?not a task of a Slurm job array}
	mkdir -p "$DIR/parts"
	echo "$N" > "$DIR/parts/tasks"
	share "$T" "$N"
	[ "$first" -le "$last" ] || exit 0
	part=$DIR/parts/$(printf '%06d' "$T")
	# A task run again (a requeue, a new run into DIR) is unfinished
	# until it succeeds.
	rm -f "$part.done"
	# One input per line: split at newlines only, no globbing.
	set -f
	IFS='
'
	# shellcheck disable=SC2046
	set -- $(grep . "$LIST" | sed -n "${first},${last}p")
	unset IFS
	set +f
	J=${SLURM_CPUS_PER_TASK:-${SLURM_CPUS_ON_NODE:-1}}
	printf '%s: task %s of %s: inputs %s to %s of %s, %s workers\n' "$PROG" "$T" "$N" \
	    "$first" "$last" "$L" "$J" >&2
	nsysjax-extract -j "$J" -o "$part" -- "$@" ||
		die "task $T: extraction failed"
	: > "$part.done"
	exit 0
fi

[ -r "$DIR/parts/tasks" ] || die "$DIR/parts: no task has run"
N=$(cat "$DIR/parts/tasks")
set --
T=0
while [ "$T" -lt "$N" ]; do
	share "$T" "$N"
	part=$DIR/parts/$(printf '%06d' "$T")
	if [ "$first" -le "$last" ]; then
		[ -e "$part.done" ] || die "task $T of $N did not finish ($part)"
		set -- "$@" "$part"
	fi
	T=$((T + 1))
done
nsysjax-extract --merge -o "$DIR/frames" -- "$@" || die "the merge failed"
