import PathwatchProbeKit

/// The probe's C descriptor. The exported `pathwatch_probe_entry` symbol lives in its own tiny
/// target (`Plugins/Exec/Entry`), linked only into the plug-in library, so that the test bundle
/// can link several probes without two definitions of that one symbol.
package func execProbeDescriptor() -> UnsafeRawPointer { ProbeExport.descriptor(for: ExecProbe.self) }
