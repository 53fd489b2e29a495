"""Trapeze messaging on Myrinet and the Slice network storage built on it.

Trapeze is firmware for Myrinet's LANai cards and a host library: control
messages of at most 128 bytes with an attached payload (a page, a file
block), moved by the card's DMA with adaptive message pipelining
(:mod:`fcsim.trapeze.message`, :mod:`fcsim.trapeze.card`). NetRPC carries
kernel-to-kernel calls over it, nonblocking, their replies handled in the
receive interrupt (:mod:`fcsim.trapeze.netrpc`). Slice's block I/O servers
serve their disks over NetRPC, and a client stripes a file over them, with
read-ahead, write-behind and page faults (:mod:`fcsim.trapeze.blockio`,
:mod:`fcsim.trapeze.client`). The scenario tables and their typed values are
:mod:`fcsim.trapeze.config`'s, the checks across keys
:mod:`fcsim.trapeze.checks`'s, and :mod:`fcsim.trapeze.build` builds a
scenario's Slice service. See ``docs/trapeze.md``.
"""
