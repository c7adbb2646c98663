import Foundation

/// What a process costs, from /proc.
public enum ProcessUsage {
    /// User and system CPU seconds so far (fields 14 and 15 of /proc/PID/stat).
    public static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// VmRSS in KiB.
    public static func residentKiB(_ pid: Int32) -> Int? { statusField("VmRSS", of: pid) }

    /// How many threads the process has now.
    public static func threads(_ pid: Int32) -> Int? { statusField("Threads", of: pid) }

    /// A number field of /proc/PID/status ("VmRSS:  1234 kB" gives 1234).
    static func statusField(_ name: String, of pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") })
        else { return nil }
        return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "")
    }
}
