/* What the files of CFaultReport share; not part of its interface. */
#ifndef PATHWATCH_FAULTINTERNAL_H
#define PATHWATCH_FAULTINTERNAL_H

#include "cfaultreport.h"

/* The call a thread is in, as pw_fault_report_enter recorded it. */
typedef struct pw_fault_record {
    pw_fault_call call;
    char plugin[256]; /* a name, or while loading the library's path */
    char probe[128];
} pw_fault_record;

/* The calling thread's record (its call PW_FAULT_CALL_NONE outside a plug-in). */
const pw_fault_record *pw_fault_current(void);

/* "sample", "create", …; NULL for PW_FAULT_CALL_NONE. */
const char *pw_fault_call_name(pw_fault_call call);

/* Writes the fault's line to stderr (async-signal-safe). */
void pw_fault_describe(int sig, void *context);

#endif
