import CPathwatchProbe
import PathwatchProbeRules
import PathwatchSinkKit

/// A plug-in library that passed vetting, and what its descriptor says. Read either in this
/// process (the library is then loaded here, for inline probes) or by a child that loaded it
/// (process isolation: this process never maps the library).
/// Libraries are never unloaded: code of a plug-in may still be on a thread's stack (a hung
/// sample), and dlclose under it would crash.
package final class LoadedPlugin: @unchecked Sendable {
    package let path: String
    package let name: String
    package let version: String
    package let summary: String
    package let abiVersion: UInt32
    package let flags: UInt64
    package let isEventDriven: Bool
    /// The metrics the plug-in declared, checked; empty for one that declares none.
    package let metrics: MetricCatalog
    /// Immutable descriptor owned by the library, valid while it stays loaded (forever); nil
    /// when the descriptor was read by a child.
    package let descriptor: UnsafePointer<pw_probe_descriptor>?

    /// A descriptor read in this process; `described` is what `DescriptorCheck` read of it.
    package init(path: String, descriptor: UnsafePointer<pw_probe_descriptor>?, described: DescribedPlugin) {
        self.path = path
        self.descriptor = descriptor
        self.name = described.name
        self.version = described.version
        self.summary = described.summary
        self.abiVersion = described.abiVersion
        self.flags = described.flags
        self.isEventDriven = described.isEventDriven
        self.metrics = described.metrics
    }

    /// What a child read from the descriptor.
    package convenience init(path: String, described: DescribedPlugin) {
        self.init(path: path, descriptor: nil, described: described)
    }

    package var needsNetwork: Bool { flags & UInt64(PW_PROBE_FLAG_NEEDS_NETWORK) != 0 }
    package var samplesOnPathChange: Bool { flags & UInt64(PW_PROBE_FLAG_SAMPLE_ON_PATH_CHANGE) != 0 }
}

/// A file in a plug-in folder that was not loaded, and why.
package struct RefusedPlugin: Sendable, CustomStringConvertible {
    package var path: String
    package var reason: String
    package var description: String { "\(path): \(reason)" }

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}
