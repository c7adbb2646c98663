#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A POSIX extended regular expression (`regcomp` with REG_EXTENDED), matched against bytes.
///
/// Chosen over Swift's `Regex` for three reasons: it is the `grep -E` dialect operators already
/// write; it matches the response's bytes as they are (REG_STARTEND: no NUL terminator, no
/// decoding of up to `max_body` bytes into a String, which would also repair invalid UTF-8 and
/// change what is matched); and glibc's matcher stays fast on a megabyte where Swift's
/// backtracking engine is slow. The agent never calls setlocale, so matching is byte-wise (C
/// locale): a UTF-8 literal matches itself, `.` is one byte.
final class PosixRegex {
    private var compiled = regex_t()

    /// Compiles `pattern`; throws regerror's text ("Unmatched ( or \\(") when it is not valid.
    init(_ pattern: String) throws(RegexProblem) {
        // glibc accepts back-references in ERE as an extension; they make matching exponential
        // in the input's length, and the input is up to max_body bytes from the network.
        guard !Self.hasBackReference(pattern) else {
            throw RegexProblem(message: "back-references (\\1 to \\9) are not supported: they can take time exponential in the body's length")
        }
        let code = regcomp(&compiled, pattern, REG_EXTENDED | REG_NOSUB)
        guard code == 0 else {
            var text = [CChar](repeating: 0, count: 256)
            regerror(code, &compiled, &text, text.count)
            // regcomp frees what it allocated when it fails: no regfree here.
            throw RegexProblem(message: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// Whether the expression matches somewhere in `bytes`.
    func matches(_ bytes: UnsafeRawBufferPointer) -> Bool {
        #if canImport(Glibc)
        var range = regmatch_t()
        range.rm_so = 0
        range.rm_eo = regoff_t(bytes.count)
        // An empty buffer still needs a valid pointer: regexec reads nothing past rm_eo.
        let empty: CChar = 0
        return withUnsafePointer(to: empty) { fallback in
            let start = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) ?? fallback
            return regexec(&compiled, start, 1, &range, REG_STARTEND) == 0
        }
        #else
        // musl has no REG_STARTEND: a NUL-terminated copy, in which a NUL byte ends the text.
        var text = bytes.map { CChar(bitPattern: $0) }
        text.append(0)
        return regexec(&compiled, text, 0, nil, 0) == 0
        #endif
    }

    /// A backslash followed by 1 to 9, outside an escaped backslash.
    static func hasBackReference(_ pattern: String) -> Bool {
        var escaped = false
        for scalar in pattern.unicodeScalars {
            if escaped {
                if ("1"..."9").contains(scalar) { return true }
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            }
        }
        return false
    }

    deinit { regfree(&compiled) }
}

/// Why a pattern was refused, in regerror's words (never the pattern itself).
struct RegexProblem: Error {
    var message: String
}
