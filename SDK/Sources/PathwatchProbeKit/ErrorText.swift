import CPathwatchProbe

extension pw_error {
    /// The two NUL-terminated buffers as text, termination forced first: a plug-in that filled
    /// them to the brim cannot make the reader go past them. For hosts and test harnesses.
    public mutating func texts() -> (path: String, message: String) {
        func read<T>(_ field: inout T) -> String {
            withUnsafeMutableBytes(of: &field) { raw in
                raw[raw.count - 1] = 0
                return String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
        }
        return (read(&path), read(&message))
    }
}
