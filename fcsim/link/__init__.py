"""The line machinery every technology shares: a full-duplex link (line rate,
cable delay, bit errors; :mod:`fcsim.link.link`) and the transmitter timing
that puts a frame's transmission characters on it with the technology's gap
after each frame (:mod:`fcsim.link.line`). Flow control is the technology's:
Fibre Channel's buffer-to-buffer credit lives in :mod:`fcsim.fc2.port`,
Ethernet's none in :mod:`fcsim.ethernet.port`."""
