/* RE2 behind the C calls of cre2shim.h: see there for the options and why a shim. */
#include "cre2shim.h"

#include <new>
#include <string>

#include <re2/re2.h>
#include <re2/set.h>

struct pw_re2 {
    re2::RE2 expression;
    pw_re2(const re2::StringPiece &pattern, const re2::RE2::Options &options) : expression(pattern, options) {}
};

namespace {

re2::RE2::Options options(int64_t max_mem) {
    re2::RE2::Options options;
    options.set_encoding(re2::RE2::Options::EncodingLatin1);
    options.set_dot_nl(true);
    options.set_never_capture(true);
    options.set_longest_match(false);
    options.set_log_errors(false);
    options.set_max_mem(max_mem);
    return options;
}

/* RE2's words for each kind (its own table, which its public header does not export). */
const char *reason(pw_re2_error kind) {
    switch (kind) {
    case PW_RE2_BAD_ESCAPE: return "invalid escape sequence";
    case PW_RE2_BAD_CHAR_CLASS: return "invalid character class";
    case PW_RE2_BAD_CHAR_RANGE: return "invalid character class range";
    case PW_RE2_MISSING_BRACKET: return "missing ]";
    case PW_RE2_MISSING_PAREN: return "missing )";
    case PW_RE2_UNEXPECTED_PAREN: return "unexpected )";
    case PW_RE2_TRAILING_BACKSLASH: return "trailing \\";
    case PW_RE2_REPEAT_ARGUMENT: return "no argument for repetition operator";
    case PW_RE2_REPEAT_SIZE: return "invalid repetition size";
    case PW_RE2_REPEAT_OP: return "bad repetition operator";
    case PW_RE2_BAD_PERL_OP: return "invalid perl operator";
    case PW_RE2_BAD_UTF8: return "invalid UTF-8";
    case PW_RE2_BAD_NAMED_CAPTURE: return "invalid named capture group";
    case PW_RE2_PATTERN_TOO_LARGE: return "pattern too large - compile failed";
    case PW_RE2_OUT_OF_MEMORY: return "out of memory";
    case PW_RE2_INTERNAL: break;
    }
    return "unexpected error";
}

pw_re2_error kind(re2::RE2::ErrorCode code) {
    switch (code) {
    case re2::RE2::ErrorBadEscape: return PW_RE2_BAD_ESCAPE;
    case re2::RE2::ErrorBadCharClass: return PW_RE2_BAD_CHAR_CLASS;
    case re2::RE2::ErrorBadCharRange: return PW_RE2_BAD_CHAR_RANGE;
    case re2::RE2::ErrorMissingBracket: return PW_RE2_MISSING_BRACKET;
    case re2::RE2::ErrorMissingParen: return PW_RE2_MISSING_PAREN;
    case re2::RE2::ErrorUnexpectedParen: return PW_RE2_UNEXPECTED_PAREN;
    case re2::RE2::ErrorTrailingBackslash: return PW_RE2_TRAILING_BACKSLASH;
    case re2::RE2::ErrorRepeatArgument: return PW_RE2_REPEAT_ARGUMENT;
    case re2::RE2::ErrorRepeatSize: return PW_RE2_REPEAT_SIZE;
    case re2::RE2::ErrorRepeatOp: return PW_RE2_REPEAT_OP;
    case re2::RE2::ErrorBadPerlOp: return PW_RE2_BAD_PERL_OP;
    case re2::RE2::ErrorBadUTF8: return PW_RE2_BAD_UTF8;
    case re2::RE2::ErrorBadNamedCapture: return PW_RE2_BAD_NAMED_CAPTURE;
    case re2::RE2::ErrorPatternTooLarge: return PW_RE2_PATTERN_TOO_LARGE;
    default: return PW_RE2_INTERNAL;
    }
}

/* RE2 reads a Latin-1 pattern by converting it to UTF-8 first, so the fragment it blames is
 * UTF-8 of characters up to U+00FF: written back as the one byte each was in the pattern. */
void latin1_fragment(const std::string &utf8, pw_re2_problem *problem) {
    size_t out = 0;
    for (size_t i = 0; i < utf8.size() && out < problem->fragment_capacity; i++) {
        unsigned char byte = static_cast<unsigned char>(utf8[i]);
        if (byte >= 0xC2 && byte <= 0xC3 && i + 1 < utf8.size()) {
            byte = static_cast<unsigned char>(((byte & 0x1F) << 6) | (utf8[i + 1] & 0x3F));
            i++;
        } else if (byte >= 0x80) {
            break; /* not from a Latin-1 pattern: keep what came before */
        }
        problem->fragment[out++] = byte;
    }
    problem->fragment_length = out;
}

void refuse(pw_re2_problem *problem, pw_re2_error error, const std::string &fragment) {
    problem->kind = error;
    problem->reason = reason(error);
    problem->fragment_length = 0;
    if (problem->fragment != nullptr) latin1_fragment(fragment, problem);
}

re2::StringPiece piece(const unsigned char *bytes, size_t length) {
    return re2::StringPiece(reinterpret_cast<const char *>(bytes), length);
}

} // namespace

/* Every call catches what RE2 may throw (std::bad_alloc, when a plug-in child's heap limit makes
 * malloc fail): no C++ exception may unwind into Swift's frames. */
extern "C" pw_re2 *pw_re2_compile(
    const unsigned char *pattern, size_t length, int64_t program_budget, int64_t max_mem, pw_re2_problem *problem) {
    try {
        {
            re2::RE2 within(piece(pattern, length), options(program_budget));
            if (!within.ok()) {
                refuse(problem, kind(within.error_code()), within.error_arg());
                return nullptr;
            }
        }
        pw_re2 *compiled = new pw_re2(piece(pattern, length), options(max_mem));
        if (compiled->expression.ok()) return compiled;
        refuse(problem, kind(compiled->expression.error_code()), compiled->expression.error_arg());
        delete compiled;
    } catch (...) {
        refuse(problem, PW_RE2_OUT_OF_MEMORY, std::string());
    }
    return nullptr;
}

/* RE2::Set::Add parses a pattern and compiles nothing; it says why it refused one in a single
 * text, "<reason>: <fragment>" (or the reason alone), read back here into a kind and fragment. */
extern "C" int pw_re2_parses(const unsigned char *pattern, size_t length, pw_re2_problem *problem) {
    try {
        re2::RE2::Set set(options(re2::RE2::Options::kDefaultMaxMem), re2::RE2::UNANCHORED);
        std::string error;
        if (set.Add(piece(pattern, length), &error) >= 0) return 1;
        for (int code = PW_RE2_BAD_ESCAPE; code <= PW_RE2_BAD_NAMED_CAPTURE; code++) {
            pw_re2_error candidate = static_cast<pw_re2_error>(code);
            std::string words = std::string(reason(candidate)) + ": ";
            if (error.compare(0, words.size(), words) == 0) {
                refuse(problem, candidate, error.substr(words.size()));
                return 0;
            }
            if (error == reason(candidate)) {
                refuse(problem, candidate, std::string());
                return 0;
            }
        }
        refuse(problem, PW_RE2_INTERNAL, std::string());
    } catch (...) {
        refuse(problem, PW_RE2_OUT_OF_MEMORY, std::string());
    }
    return 0;
}

extern "C" int pw_re2_match(const pw_re2 *expression, const unsigned char *text, size_t length) {
    try {
        static const char empty = 0;
        const char *start = text != nullptr ? reinterpret_cast<const char *>(text) : &empty;
        /* Unanchored, no submatch asked: RE2 answers from its DFA (its NFA if the DFA's memory
         * runs out), one pass over the text. */
        re2::StringPiece subject(start, length);
        return expression->expression.Match(subject, 0, length, re2::RE2::UNANCHORED, nullptr, 0) ? 1 : 0;
    } catch (...) {
        return -1;
    }
}

extern "C" void pw_re2_free(pw_re2 *expression) { delete expression; }
