/*
 * cre2shim.h — RE2 for the reachability plug-in's `/…/` conditions, through plain C.
 *
 * RE2 matches in time linear in the text (no backtracking: its DFA, or its NFA when the DFA's
 * memory runs out), which is why the plug-in uses it; but RE2 is a C++ library, and Debian ships
 * no C API for it (no cre2 package), while Swift calls C without C++ interoperability. This
 * header is C: the few calls the plug-in needs, implemented in C++ in cre2shim.cpp over RE2's own
 * API, with no C++ type or exception crossing it.
 *
 * Every expression is compiled with the same options, the pattern language the reachability
 * README documents: bytes as Latin-1 (a pattern's byte is one character, `.` is one byte, a UTF-8
 * literal matches its own bytes), `.` matching a line break too, `^` and `$` the start and end of
 * the whole text unless the pattern says `(?m)`, no capturing (only match or no match is asked),
 * the first match rather than the longest, nothing logged.
 */
#ifndef PATHWATCH_CRE2SHIM_H
#define PATHWATCH_CRE2SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A compiled expression; safe to match from several threads at once (RE2 locks its DFA cache). */
typedef struct pw_re2 pw_re2;

/* Why a pattern was refused. The kinds are RE2's error codes (RE2::ErrorCode), and
 * PW_RE2_OUT_OF_MEMORY when allocating failed while compiling. */
typedef enum {
    PW_RE2_INTERNAL = 1,
    PW_RE2_BAD_ESCAPE,
    PW_RE2_BAD_CHAR_CLASS,
    PW_RE2_BAD_CHAR_RANGE,
    PW_RE2_MISSING_BRACKET,
    PW_RE2_MISSING_PAREN,
    PW_RE2_UNEXPECTED_PAREN,
    PW_RE2_TRAILING_BACKSLASH,
    PW_RE2_REPEAT_ARGUMENT,
    PW_RE2_REPEAT_SIZE,
    PW_RE2_REPEAT_OP,
    PW_RE2_BAD_PERL_OP,
    PW_RE2_BAD_UTF8,
    PW_RE2_BAD_NAMED_CAPTURE,
    PW_RE2_PATTERN_TOO_LARGE,
    PW_RE2_OUT_OF_MEMORY,
} pw_re2_error;

/* A refusal: its kind, RE2's words for the kind ("missing )", static text, never the pattern),
 * and the part of the pattern RE2 blamed (its error_arg), as the pattern's own bytes in the
 * caller's buffer: for the caller to name a construct and find where it is, not to show. */
typedef struct {
    pw_re2_error kind;
    const char *reason;
    unsigned char *fragment;   /* the caller's buffer */
    size_t fragment_capacity;  /* its size */
    size_t fragment_length;    /* bytes written, at most the capacity */
} pw_re2_problem;

/* Compiles `length` bytes of pattern (NUL bytes included) with the options above. Twice: first
 * within `program_budget` bytes (RE2::Options::max_mem), so a pattern whose program exceeds it
 * is refused early, before the analysis RE2 makes of a compiled program, whose time grows faster
 * than the program; then, having passed, with `max_mem` for the program and its DFA caches.
 * Returns the expression, or NULL with `problem` filled in. */
pw_re2 *pw_re2_compile(
    const unsigned char *pattern, size_t length, int64_t program_budget, int64_t max_mem, pw_re2_problem *problem);

/* Whether the pattern parses, RE2's syntax alone, nothing compiled: 1, or 0 with `problem` filled
 * in as pw_re2_compile would. Cheaper than compiling: for finding where a refused pattern went
 * wrong. */
int pw_re2_parses(const unsigned char *pattern, size_t length, pw_re2_problem *problem);

/* Whether `length` bytes of text hold a match anywhere: 1 if so, 0 if not, -1 when memory ran
 * out during the search (the only way it does not answer). `text` may be NULL when `length` is 0. */
int pw_re2_match(const pw_re2 *expression, const unsigned char *text, size_t length);

void pw_re2_free(pw_re2 *expression);

#ifdef __cplusplus
}
#endif

#endif
