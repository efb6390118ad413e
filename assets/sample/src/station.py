"""Model of a Tidewater station's firmware: sampling, ten-minute windows and packets.

The real firmware is C on a microcontroller; this model is what the base-server tests run
against, and it documents the behaviour the firmware must have.
"""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Sequence

WINDOW_SECONDS = 600
DEGRADED_BATTERY_FRACTION = 0.30
PACKET_FORMAT = ">HI" + "hhhh" * 4 + "H"


class Quantity(Enum):
    """The four quantities a station measures."""

    WIND = "wind"
    PRESSURE = "pressure"
    WATER_LEVEL = "water_level"
    TEMPERATURE = "temperature"


@dataclass(frozen=True)
class Statistics:
    """Mean, minimum, maximum and standard deviation of one quantity over a window."""

    mean: float
    minimum: float
    maximum: float
    stddev: float

    @classmethod
    def of(cls, samples: Sequence[float]) -> "Statistics":
        """Computes the statistics of a non-empty sequence of samples."""
        if not samples:
            raise ValueError("a window needs at least one sample")
        mean = sum(samples) / len(samples)
        variance = sum((s - mean) ** 2 for s in samples) / len(samples)
        return cls(mean, min(samples), max(samples), math.sqrt(variance))


@dataclass
class Window:
    """A ten-minute window of samples for every quantity."""

    start: int
    samples: dict[Quantity, list[float]] = field(default_factory=dict)
    degraded: bool = False

    def add(self, quantity: Quantity, value: float) -> None:
        """Adds one sample of a quantity."""
        self.samples.setdefault(quantity, []).append(value)

    def statistics(self) -> dict[Quantity, Statistics]:
        """The statistics of every quantity that has samples."""
        return {q: Statistics.of(values) for q, values in self.samples.items() if values}


class Station:
    """One mast: samples sensors, closes windows, builds packets."""

    def __init__(self, station_id: int, battery_capacity_ah: float = 12.0) -> None:
        self.station_id = station_id
        self.battery_capacity_ah = battery_capacity_ah
        self.battery_ah = battery_capacity_ah
        self.window: Window | None = None

    @property
    def sampling_interval(self) -> int:
        """Seconds between samples: 1, or 5 when the battery is low."""
        return 5 if self.battery_fraction < DEGRADED_BATTERY_FRACTION else 1

    @property
    def battery_fraction(self) -> float:
        return self.battery_ah / self.battery_capacity_ah

    def send_offset(self) -> int:
        """Seconds after the window end at which this station transmits (avoids collisions)."""
        return (self.station_id * 7) % 60

    def sample(self, now: int, readings: dict[Quantity, float]) -> bytes | None:
        """Records one set of readings; returns a packet when a window closes."""
        packet = None
        window_start = now - now % WINDOW_SECONDS
        if self.window is not None and self.window.start != window_start:
            packet = self.close_window()
        if self.window is None:
            self.window = Window(window_start, degraded=self.sampling_interval > 1)
        for quantity, value in readings.items():
            self.window.add(quantity, value)
        return packet

    def close_window(self) -> bytes:
        """Closes the current window and encodes it as a packet."""
        assert self.window is not None
        packet = encode_packet(self.station_id, self.window)
        self.window = None
        return packet


def encode_packet(station_id: int, window: Window) -> bytes:
    """Encodes a window as the 48-byte uplink packet (without the HMAC)."""
    stats = window.statistics()
    fields: list[int] = [station_id, window.start]
    for quantity in Quantity:
        s = stats.get(quantity, Statistics(0, 0, 0, 0))
        fields.extend(to_fixed(v) for v in (s.mean, s.minimum, s.maximum, s.stddev))
    body = struct.pack(PACKET_FORMAT[:-1], *fields)
    return body + struct.pack(">H", zlib.crc32(body) & 0xFFFF)


def to_fixed(value: float, scale: int = 100) -> int:
    """16-bit fixed point with two decimals, clamped to the representable range."""
    return max(-32768, min(32767, round(value * scale)))


def decode_packets(packets: Iterable[bytes]) -> list[tuple[int, int]]:
    """Station id and window start of each packet, for the gateway's log."""
    return [struct.unpack(">HI", p[:6]) for p in packets]
