import ExecProbe

/// The plug-in's one exported symbol: the host finds the probe through it.
@_cdecl("pathwatch_probe_entry")
public func pathwatchProbeEntry() -> UnsafeRawPointer { execProbeDescriptor() }
