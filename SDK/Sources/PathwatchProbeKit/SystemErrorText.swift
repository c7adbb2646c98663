#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C library's text for an errno value ("No such file or directory"), or "error N" for a
/// value it has no text for: what a probe's error message says after a failed system call.
public func systemErrorText(_ code: Int32) -> String {
    strerror(code).map { String(cString: $0) } ?? "error \(code)"
}
