#!/usr/bin/env python3
# Prometheus text exposition, as a vendor tool prints it: HELP, TYPE, labels, a timestamp.
print("# HELP queue_depth Jobs waiting.")
print("# TYPE queue_depth gauge")
print('queue_depth{queue="mail"} 7')
print('queue_depth{queue="print"} 2 1700000000000')
print('queue_depth{queue="spam",prio="hi"} 3')
print("# TYPE jobs_done_total counter")
print("jobs_done_total 1234")
print("# HELP jobs_total Jobs taken since the worker started.")
print("# TYPE jobs_total counter")
print("jobs_total 42")
print("last_run_seconds 0.25")
