/// A count with its noun, singular for one: "1 sink", "2 sinks", "0 probes". Every count the
/// agent prints goes through this, so no line says "1 sinks".
package enum Plural {
    /// `noun` is the singular; the plural adds "s" (every noun counted here does).
    package static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }
}
