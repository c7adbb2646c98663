import PathwatchProbeKit

/// The plug-in's descriptor, public so that the one exported C symbol can live in whichever
/// module the shared library is built from.
public enum ReachabilityExport {
    public static func descriptor() -> UnsafeRawPointer { ProbeExport.descriptor(for: ReachabilityProbe.self) }
}

/// The plug-in's one exported symbol: the host finds the probe through it.
@_cdecl("pathwatch_probe_entry")
public func pathwatchProbeEntry() -> UnsafeRawPointer { ReachabilityExport.descriptor() }
