// Package uplink forwards station packets from the LoRa gateway to the base server.
package uplink

import (
	"errors"
	"math/rand"
	"time"
)

// Packet is one 48-byte window report from a station.
type Packet struct {
	StationID uint16
	Payload   []byte
}

// Sender delivers packets to the base server.
type Sender interface {
	Send(p Packet) error
}

// Retrying sends with up to three attempts and a random back-off, then keeps the packet.
type Retrying struct {
	Next    Sender
	Backlog []Packet
}

// ErrGaveUp is returned when a packet was kept for the next window.
var ErrGaveUp = errors.New("uplink: kept packet for the next window")

// Send tries a packet three times before keeping it in the backlog.
func (r *Retrying) Send(p Packet) error {
	for attempt := 0; attempt < 3; attempt++ {
		if err := r.Next.Send(p); err == nil {
			return nil
		}
		time.Sleep(time.Duration(rand.Intn(500)) * time.Millisecond)
	}
	r.Backlog = append(r.Backlog, p)
	return ErrGaveUp
}
