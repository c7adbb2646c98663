import PathwatchProbeKit

/// The probe's C descriptor. The exported `pathwatch_probe_entry` symbol lives in its own tiny
/// target (`Plugins/DNS/Entry`), linked only into the plug-in library, so that the test bundle
/// can link the probe without a second definition of that one symbol.
package func dnsProbeDescriptor() -> UnsafeRawPointer { ProbeExport.descriptor(for: DNSProbe.self) }
