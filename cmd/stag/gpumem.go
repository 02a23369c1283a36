package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Sources of a record's peak_device_mb, written in its device_memory field.
const (
	deviceMemoryProcess = "nvidia-smi: the process's used_memory (CUDA context and allocator pool)"
	deviceMemoryDelta   = "nvidia-smi: the GPUs' memory.used above their level before the process started"
)

// gpuMemoryProbe measures, with nvidia-smi, the GPU memory of a benchmark process while it runs,
// the same way for ours and for the peer, so that the two can be compared.
type gpuMemoryProbe struct {
	smi      string        // nvidia-smi's path
	interval time.Duration // time between two samples
}

// newGPUMemoryProbe returns a probe, or nil when there is no nvidia-smi (no NVIDIA GPU).
func newGPUMemoryProbe() *gpuMemoryProbe {
	smi, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return nil
	}
	return &gpuMemoryProbe{smi: smi, interval: 50 * time.Millisecond}
}

// run starts cmd, samples until it exits and returns cmd's error with the peak GPU memory in MiB
// and how it was measured: the process's own used_memory when nvidia-smi lists it (it may not,
// inside a container), else the growth of the GPUs' memory.used over its level before the start,
// which counts only this process when nothing else runs on the GPUs. peakMB is 0 and source ""
// when neither showed any memory. A nil probe only runs cmd.
func (p *gpuMemoryProbe) run(cmd *exec.Cmd) (peakMB float64, source string, err error) {
	if p == nil {
		return 0, "", cmd.Run()
	}
	base, baseOK := p.deviceUsed()
	if err := cmd.Start(); err != nil {
		return 0, "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var procPeak, devicePeak float64
	// One nvidia-smi call per sample while it lists the process (the usual case), so that the
	// probe takes as little CPU as it can from the process it measures.
	sample := func() {
		if mb, ok := p.processUsed(cmd.Process.Pid); ok {
			procPeak = max(procPeak, mb)
		} else if used, ok := p.deviceUsed(); ok && baseOK {
			devicePeak = max(devicePeak, used-base)
		}
	}
	tick := time.NewTicker(p.interval)
	defer tick.Stop()
	for {
		select {
		case err = <-done:
			switch {
			case procPeak > 0:
				return procPeak, deviceMemoryProcess, err
			case devicePeak > 0:
				return devicePeak, deviceMemoryDelta, err
			}
			return 0, "", err
		case <-tick.C:
			sample()
		}
	}
}

// processUsed returns the GPU memory (MiB) nvidia-smi lists for process pid, summed over GPUs.
func (p *gpuMemoryProbe) processUsed(pid int) (float64, bool) {
	out, err := exec.Command(p.smi, "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits").Output()
	if err != nil {
		return 0, false
	}
	return parseComputeApps(out, pid)
}

// deviceUsed returns the memory used on all GPUs (MiB), from nvidia-smi.
func (p *gpuMemoryProbe) deviceUsed() (float64, bool) {
	out, err := exec.Command(p.smi, "--query-gpu=memory.used", "--format=csv,noheader,nounits").Output()
	if err != nil {
		return 0, false
	}
	return parseMemoryUsed(out)
}

// parseComputeApps reads `nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits`
// ("1234, 512" per process and GPU; "[N/A]" where the driver does not say) and returns the
// memory of process pid summed over its lines, and whether any line named it with a number.
func parseComputeApps(out []byte, pid int) (float64, bool) {
	var total float64
	found := false
	for _, line := range strings.Split(string(bytes.TrimSpace(out)), "\n") {
		fields := strings.Split(line, ",")
		if len(fields) != 2 {
			continue
		}
		if id, err := strconv.Atoi(strings.TrimSpace(fields[0])); err != nil || id != pid {
			continue
		}
		mb, err := strconv.ParseFloat(strings.TrimSpace(fields[1]), 64)
		if err != nil {
			continue
		}
		total += mb
		found = true
	}
	return total, found
}

// parseMemoryUsed reads `nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits` (one
// number of MiB per GPU) and returns their sum; any line that is not a number makes it fail.
func parseMemoryUsed(out []byte) (float64, bool) {
	var total float64
	lines := strings.Split(string(bytes.TrimSpace(out)), "\n")
	for _, line := range lines {
		mb, err := strconv.ParseFloat(strings.TrimSpace(line), 64)
		if err != nil {
			return 0, false
		}
		total += mb
	}
	return total, len(lines) > 0
}

// withDeviceMemory adds peak_device_mb and device_memory to a JSON record (ours or the peer's)
// when the probe measured something.
func withDeviceMemory(line []byte, peakMB float64, source string) ([]byte, error) {
	if source == "" {
		return line, nil
	}
	rec, err := decodeRecord(line)
	if err != nil {
		return nil, err
	}
	setDeviceMemory(rec, peakMB, source)
	return encodeRecord(rec)
}

// setDeviceMemory sets a decoded record's peak_device_mb and device_memory when the probe
// measured something (source is not "").
func setDeviceMemory(rec map[string]any, peakMB float64, source string) {
	if source != "" {
		rec["peak_device_mb"], rec["device_memory"] = peakMB, source
	}
}

// decodeRecord reads one JSON record as a map.
func decodeRecord(line []byte) (map[string]any, error) {
	var rec map[string]any
	if err := json.Unmarshal(line, &rec); err != nil {
		return nil, fmt.Errorf("reading the result %q: %w", line, err)
	}
	return rec, nil
}

// encodeRecord writes a record as one JSON line.
func encodeRecord(rec map[string]any) ([]byte, error) {
	b, err := json.Marshal(rec)
	return append(b, '\n'), err
}
