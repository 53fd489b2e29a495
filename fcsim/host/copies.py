"""The processor time of moving data between a process and the kernel: a copy
per byte, or, with copy avoidance, a virtual-memory operation per page.

Four host-model options avoid copies, each with its cost per page of the
model's *page_size* bytes (:data:`PAGE`, 4096, unless the model says
otherwise):

- *copy_avoidance*: every copy (socket send and receive, block reads and
  writes) is a page remap, whatever its size or alignment, a page for each
  page or part of one: an idealised host that never copies;
- *zero_copy_send*: a TCP send() maps the user's pages into the kernel
  copy-on-write instead of copying them (the FreeBSD 4.x zero-copy sockets of
  Trapeze/IP, Gallatin, Chase and Yocum, USENIX 1999 FREENIX; FreeBSD
  zero_copy(9)): *page_remap* per whole page of the write, the bytes of a
  part page copied. A process that writes to a page still mapped takes a
  copy-on-write fault (*cow_fault*, with the copy of the page); netperf and
  iperf never touch their send buffers;
- *zero_copy_receive*: a TCP recv() renames the kernel's pages into the
  user's buffer instead of copying out of them (receive page renaming, same
  sources): *page_remap* per whole page, but only when every segment's data
  is whole pages, so that the NIC put the payloads page-aligned (as Trapeze's
  8 KB payloads; an MSS of 8192, as MTU 9000 gives, is two pages; 1460 is
  not): otherwise every byte is copied;
- *remap_reads*: a file or raw-device read() of at least a page maps the
  kernel's pages into the process instead of copying them, a page for each
  page or part of one (FreeBSD 4.0: ``ffs_read`` calls ``uioread``, which
  maps the file's pages when ``vfs.ioopt`` is set and the request is at least
  a page); a write() still copies (:func:`block_copy_time`).

A block device read or written with the host model's *direct_block_io*
(a raw device: AIX raw logical volumes, Linux raw(8)) moves its data by DMA
straight to and from the process's buffer: no copy, *page_remap* per page to
pin the buffer (:func:`block_copy_time`).

Applications' buffers are taken to be page-aligned (netperf's are when run
with -a/-A at the page size, an assumption).
"""

from __future__ import annotations

from fcsim.host.host_model import HostModel

PAGE = 4096
"""The default page size for copy avoidance by remapping, bytes (the i386's)."""


def copy_time(model: HostModel, nbytes: int, sending: bool = False) -> float:
    """Processor time to copy *nbytes* between a process and the kernel (into it
    if *sending*), or to remap their pages with *copy_avoidance*, s."""
    if model.copy_avoidance:
        return -(-nbytes // model.page_size) * model.page_remap
    if sending and model.send_copy_per_byte is not None:
        return nbytes * model.send_copy_per_byte
    return nbytes * model.copy_per_byte


def socket_copy_time(model: HostModel, nbytes: int, sending: bool, segment_data: int,
                     touched: bool = False) -> float:
    """Processor time of a TCP send() (*sending*) or recv() of *nbytes*, s.

    *segment_data*: the data bytes of a full segment of the connection (MSS
    less options): zero-copy receive needs it to be whole pages. *touched*:
    the sender writes to its buffer while the kernel still maps it (a
    copy-on-write fault per page).
    """
    page = model.page_size
    if model.copy_avoidance or not (model.zero_copy_send if sending else
                                    model.zero_copy_receive and segment_data % page == 0):
        return copy_time(model, nbytes, sending)
    pages = nbytes // page
    per_page = model.page_remap + (model.cow_fault if sending and touched else 0.0)
    return pages * per_page + copy_time(model, nbytes - pages * page, sending)


def block_copy_time(model: HostModel, nbytes: int, writing: bool) -> float:
    """Processor time to move *nbytes* between a process and a block device's
    request or a file (into the kernel if *writing*), s: a copy; with
    *direct_block_io* the pinning of each page of the buffer; with
    *remap_reads* a read of at least a page is a remap of its pages."""
    if model.direct_block_io:
        return -(-nbytes // model.page_size) * model.page_remap
    if model.remap_reads and not writing and nbytes >= model.page_size:
        return -(-nbytes // model.page_size) * model.page_remap
    return copy_time(model, nbytes, writing)


__all__ = ["PAGE", "block_copy_time", "copy_time", "socket_copy_time"]
