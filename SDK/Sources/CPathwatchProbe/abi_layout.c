/* Compile-time guard on the plug-in ABI's layout. The structs in pathwatch_probe.h are a
 * published contract: if an edit moves a field, this file stops compiling instead of
 * letting old plug-ins read garbage. Sizes are for LP64 (x86_64, aarch64 Linux). */
#include "pathwatch_probe.h"

#if defined(__LP64__)
/* Labels, kind and help grew pw_metric at its end: a plug-in of the first layout says 24. */
_Static_assert(offsetof(pw_metric, labels) == 24, "pw_metric.labels moved");
_Static_assert(sizeof(pw_metric) == 56, "pw_metric layout changed: bump PW_PROBE_ABI_VERSION");
_Static_assert(sizeof(pw_label) == 24, "pw_label layout changed: bump PW_PROBE_ABI_VERSION");
_Static_assert(sizeof(pw_observation) == 64, "pw_observation layout changed");
_Static_assert(sizeof(pw_emitter) == 24, "pw_emitter layout changed");
_Static_assert(sizeof(pw_error) == 8 + 256 + 768 + 8, "pw_error layout changed");
/* deadline_ns grew pw_error at its end: a host of the first layout hands struct_size 1032. */
_Static_assert(offsetof(pw_error, deadline_ns) == 8 + 256 + 768, "pw_error.deadline_ns moved");
_Static_assert(offsetof(pw_probe_descriptor, create) == 40, "pw_probe_descriptor layout changed");
/* The metric declarations grew the descriptor at its end: a plug-in of the first layout says 80. */
_Static_assert(offsetof(pw_probe_descriptor, metrics) == 80, "pw_probe_descriptor.metrics moved");
_Static_assert(sizeof(pw_probe_descriptor) == 96, "pw_probe_descriptor layout changed");
_Static_assert(sizeof(pw_metric_info) == 40, "pw_metric_info layout changed");
#endif
