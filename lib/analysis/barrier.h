/*
 * barrier: which modules of a comparison's two runs are barriers, by the
 * rule of nsysjax-stats' facts table (stats.h, "facts"): a module whose
 * collective wait is more than half its time, its devices waiting for the
 * slowest to arrive, not working (a jit__psum that synchronises the
 * processes).  The wait of a communication instance (ProgramId,
 * ProgramExecution, Name, ThunkExecution) is, added up over its rows,
 * each row's whole duration (exposed and hidden) less the instance's
 * shortest; a module's time is the ProjDurMs of its module rows of the
 * executions (ProgramId, ProgramExecution, Device) that have thunk rows,
 * or without module rows the sum of those thunk rows' durations.
 *
 * One run's own instances need two devices to wait for each other.  When
 * the two runs are processes of one run (their devices are disjoint:
 * pipelines/diff.sh of process 0 against process 3), an instance's rows
 * of both runs are one instance, as the whole run's facts would see it:
 * the process that waits has the barrier.  A module is a barrier of the
 * comparison when it is one in either run.
 *
 * Memory: per communication instance and run one entry, per module row
 * one entry until barrier_finish.
 */
#ifndef NSYSJAX_BARRIER_H
#define NSYSJAX_BARRIER_H

#include <stddef.h>
#include <stdint.h>

struct barrier;

/* A new, empty scan; barrier_free releases it (NULL allowed). */
struct barrier *barrier_new(void);
void barrier_free(struct barrier *b);

/*
 * A thunk row of run RUN (0, 1): ProgramId P[0..PN) (escaped, as in the
 * TSV), its execution EXEC on DEVICE, its duration DUR_NS (the compared
 * column), and when COMM, a communication row of thunk NAME[0..NN),
 * ThunkExecution TEXEC, whose whole duration is WHOLE_NS (ProjDurMs +
 * ProjDurHiddenMs).
 */
void barrier_thunk(struct barrier *b, int run, const char *p, size_t pn,
    int64_t exec, int64_t device, int64_t dur_ns, int comm,
    const char *name, size_t nn, int64_t texec, int64_t whole_ns);

/* A module row of run RUN: ProgramId P[0..PN), EXEC on DEVICE, DUR_NS. */
void barrier_module(struct barrier *b, int run, const char *p, size_t pn,
    int64_t exec, int64_t device, int64_t dur_ns);

/* After every row: the waits and times, and which modules are barriers. */
void barrier_finish(struct barrier *b);

/* 1 when ProgramId P[0..PN) of run RUN is a barrier (after
 * barrier_finish), else 0. */
int barrier_is(const struct barrier *b, int run, const char *p, size_t pn);

#endif
