/* A well-formed shared library that is not a Pathwatch plug-in: it lacks the entry symbol. */
int not_a_probe(void) { return 42; }
