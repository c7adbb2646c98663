/*
 * cprocesscontrol.h — the two prctl(2) calls the agent makes on itself, as functions Swift can
 * call (prctl is variadic, which Swift cannot import).
 */
#ifndef PATHWATCH_CPROCESSCONTROL_H
#define PATHWATCH_CPROCESSCONTROL_H

/* PR_SET_DUMPABLE 0: no other process of the same user may ptrace this one, read or write its
 * memory (process_vm_*, /proc/<pid>/mem), open its descriptors (/proc/<pid>/fd) or write its
 * /proc files (oom_score_adj), which the kernel then gives to root. 0, or -1 with errno set. */
int pw_make_undumpable(void);

/* PR_GET_DUMPABLE: 1 when this process is dumpable, 0 when not. */
int pw_is_dumpable(void);

/* PR_SET_NAME: names the calling thread (the kernel keeps 15 bytes). 0, or -1 with errno set. */
int pw_set_thread_name(const char *name);

#endif
