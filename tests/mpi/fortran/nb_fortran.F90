! nb_fortran: every non-blocking collective libacct intercepts, called from
! Fortran (issue 22): mpi_ibarrier, mpi_ibcast, mpi_ireduce, mpi_iallreduce,
! mpi_igather, mpi_iscatter, mpi_iallgather, mpi_ialltoall,
! mpi_ireduce_scatter_block and the v-collectives mpi_iallgatherv,
! mpi_ireduce_scatter, mpi_igatherv, mpi_iscatterv, mpi_ialltoallv
! (irregular counts with zeros, blocks in reverse rank order), mpi_iscan
! and mpi_iexscan, on
! MPI_COMM_WORLD and on a sub-communicator (split by parity, ranks
! reversed; it first runs one mpi_barrier: ACCT's private duplicate).
! Every one that MPI allows it for runs once more with MPI_IN_PLACE (at the
! root for the rooted ones). They complete in different ways: mpi_wait,
! mpi_waitall (the iallreduce in one array with a ring of
! mpi_isend/mpi_irecv), loops of mpi_test. Every result is checked against
! its closed form, and every receive buffer (untouched parts included) is
! folded into a per-collective digest, so that two runs -- natively and
! through ACCT -- can be compared byte for byte. Built as -DACCT_MPIFH
! (include 'mpif.h'), -DACCT_USE_MPI (use mpi) and -DACCT_F08 (use mpi_f08).
!
! Output (world rank 0):
!   calls i<coll>=<n> ...          the calls world rank 0 made
!   digest i<coll> <n>             one line per collective: every rank's
!                                  digest folded in world rank order
!   nb_fortran: np=<n> checks=<n> errors=<n> OK|FAILED
#if defined(ACCT_F08)
#define HCOMM type(MPI_Comm)
#define HREQ type(MPI_Request)
#elif defined(ACCT_USE_MPI) || defined(ACCT_MPIFH)
#define HCOMM integer
#define HREQ integer
#else
#error "compile with -DACCT_MPIFH, -DACCT_USE_MPI or -DACCT_F08"
#endif

program nb_fortran
#if defined(ACCT_F08)
  use mpi_f08
#elif defined(ACCT_USE_MPI)
  use mpi
#endif
  implicit none
#if defined(ACCT_MPIFH)
  include 'mpif.h'
#endif
  integer, parameter :: N = 3000, M = 100
  integer, parameter :: K_BARRIER = 1, K_BCAST = 2, K_REDUCE = 3, K_ALLREDUCE = 4, &
       K_GATHER = 5, K_SCATTER = 6, K_ALLGATHER = 7, K_ALLTOALL = 8, K_RSB = 9, &
       K_ALLGATHERV = 10, K_RS = 11, K_GATHERV = 12, K_SCATTERV = 13, K_ALLTOALLV = 14, &
       K_SCAN = 15, K_EXSCAN = 16, NK = 16
  character(len=*), parameter :: kname(NK) = [character(len=21) :: 'ibarrier', 'ibcast', &
       'ireduce', 'iallreduce', 'igather', 'iscatter', 'iallgather', 'ialltoall', &
       'ireduce_scatter_block', 'iallgatherv', 'ireduce_scatter', 'igatherv', 'iscatterv', &
       'ialltoallv', 'iscan', 'iexscan']
  integer(8), parameter :: HMOD = 2147483647_8, HMUL = 1000003_8
  HCOMM :: sub, comm
  HREQ :: req(3)
  integer :: wrank, wsize, rank, size, ierr, i, j, c, root, left, right
  integer :: checks, errors, tot(2), res(2), ncalls(NK)
  integer(8) :: dig(NK), alldig(NK, 0:63), h
  logical :: flag
  integer, allocatable, asynchronous :: buf(:), sbuf(:), rbuf(:), ring_out(:), ring_in(:)
  integer, allocatable :: cnts(:), dsps(:), scnt(:), sdsp(:), rcnt(:), rdsp(:)
  integer :: k, at

  checks = 0
  errors = 0
  ncalls = 0
  dig = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, wrank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, wsize, ierr)
  if (wsize > 64) then
    if (wrank == 0) write (*, '(a)') 'nb_fortran: at most 64 ranks'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  call MPI_Comm_split(MPI_COMM_WORLD, mod(wrank, 2), -wrank, sub, ierr)
  call MPI_Barrier(sub, ierr)
  do c = 1, 2
    if (c == 1) then
      comm = MPI_COMM_WORLD
    else
      comm = sub
    end if
    call MPI_Comm_rank(comm, rank, ierr)
    call MPI_Comm_size(comm, size, ierr)
    root = size - 1

    ! ibarrier + wait
    call MPI_Ibarrier(comm, req(1), ierr)
    call posted(K_BARRIER)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)

    ! ibcast + wait
    allocate(buf(N))
    buf = -1
    if (rank == root) buf = [(7 * i + root, i = 1, N)]
    call MPI_Ibcast(buf, N, MPI_INTEGER, root, comm, req(1), ierr)
    call posted(K_BCAST)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call expect(all(buf == [(7 * i + root, i = 1, N)]))
    call fold(K_BCAST, buf)
    deallocate(buf)

    ! ireduce to the last rank + wait; then in place at the root
    allocate(sbuf(N), rbuf(N))
    sbuf = [(ival(rank, i), i = 1, N)]
    rbuf = -1
    call MPI_Ireduce(sbuf, rbuf, N, MPI_INTEGER, MPI_SUM, root, comm, req(1), ierr)
    call posted(K_REDUCE)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    if (rank == root) call expect(all(rbuf == [(sumval(i), i = 1, N)]))
    call fold(K_REDUCE, rbuf)
    if (rank == root) then
      rbuf = sbuf
      call MPI_Ireduce(MPI_IN_PLACE, rbuf, N, MPI_INTEGER, MPI_SUM, root, comm, req(1), ierr)
    else
      rbuf = -1
      call MPI_Ireduce(sbuf, rbuf, N, MPI_INTEGER, MPI_SUM, root, comm, req(1), ierr)
    end if
    call posted(K_REDUCE)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    if (rank == root) call expect(all(rbuf == [(sumval(i), i = 1, N)]))
    call fold(K_REDUCE, rbuf)
    deallocate(sbuf, rbuf)

    ! iallreduce in one waitall with a ring of point-to-point messages;
    ! then in place
    allocate(sbuf(N), rbuf(N), ring_out(N), ring_in(N))
    sbuf = [(i + rank, i = 1, N)]
    ring_out = [(i * 3 + rank, i = 1, N)]
    left = mod(rank + size - 1, size)
    right = mod(rank + 1, size)
    call MPI_Irecv(ring_in, N, MPI_INTEGER, left, 9, comm, req(1), ierr)
    call MPI_Iallreduce(sbuf, rbuf, N, MPI_INTEGER, MPI_SUM, comm, req(2), ierr)
    call posted(K_ALLREDUCE)
    call MPI_Isend(ring_out, N, MPI_INTEGER, right, 9, comm, req(3), ierr)
    call MPI_Waitall(3, req, MPI_STATUSES_IGNORE, ierr)
    call expect(all(rbuf == [(size * i + size * (size - 1) / 2, i = 1, N)]))
    call expect(all(ring_in == [(i * 3 + left, i = 1, N)]))
    call fold(K_ALLREDUCE, rbuf)
    rbuf = [(ival(rank, i), i = 1, N)]
    call MPI_Iallreduce(MPI_IN_PLACE, rbuf, N, MPI_INTEGER, MPI_SUM, comm, req(1), ierr)
    call posted(K_ALLREDUCE)
    call MPI_Waitall(1, req, MPI_STATUSES_IGNORE, ierr)
    call expect(all(rbuf == [(sumval(i), i = 1, N)]))
    call fold(K_ALLREDUCE, rbuf)
    deallocate(sbuf, rbuf, ring_out, ring_in)

    ! igather of M each to the last rank + wait; then in place at the root
    allocate(sbuf(M), rbuf(M * size))
    sbuf = [(ival(rank, i), i = 1, M)]
    rbuf = -1
    call MPI_Igather(sbuf, M, MPI_INTEGER, rbuf, M, MPI_INTEGER, root, comm, req(1), ierr)
    call posted(K_GATHER)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    if (rank == root) call expect(all(rbuf == [((ival(j, i), i = 1, M), j = 0, size - 1)]))
    call fold(K_GATHER, rbuf)
    rbuf = -1
    if (rank == root) then
      rbuf(root * M + 1 : root * M + M) = sbuf
      call MPI_Igather(MPI_IN_PLACE, M, MPI_INTEGER, rbuf, M, MPI_INTEGER, root, comm, &
                       req(1), ierr)
    else
      call MPI_Igather(sbuf, M, MPI_INTEGER, rbuf, M, MPI_INTEGER, root, comm, req(1), ierr)
    end if
    call posted(K_GATHER)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    if (rank == root) call expect(all(rbuf == [((ival(j, i), i = 1, M), j = 0, size - 1)]))
    call fold(K_GATHER, rbuf)
    deallocate(sbuf, rbuf)

    ! iscatter from rank 0 + a test loop; then in place at the root
    allocate(sbuf(M * size), rbuf(M))
    sbuf = [((ival(j, i), i = 1, M), j = 0, size - 1)]
    rbuf = -1
    call MPI_Iscatter(sbuf, M, MPI_INTEGER, rbuf, M, MPI_INTEGER, 0, comm, req(1), ierr)
    call posted(K_SCATTER)
    call test_loop(req(1))
    call expect(all(rbuf == [(ival(rank, i), i = 1, M)]))
    call fold(K_SCATTER, rbuf)
    rbuf = -1
    if (rank == 0) then
      call MPI_Iscatter(sbuf, M, MPI_INTEGER, MPI_IN_PLACE, M, MPI_INTEGER, 0, comm, req(1), &
                        ierr)
    else
      call MPI_Iscatter(sbuf, M, MPI_INTEGER, rbuf, M, MPI_INTEGER, 0, comm, req(1), ierr)
    end if
    call posted(K_SCATTER)
    call test_loop(req(1))
    if (rank /= 0) call expect(all(rbuf == [(ival(rank, i), i = 1, M)]))
    call expect(all(sbuf == [((ival(j, i), i = 1, M), j = 0, size - 1)]))
    call fold(K_SCATTER, rbuf)
    call fold(K_SCATTER, sbuf)
    deallocate(sbuf, rbuf)

    ! iallgather + wait; then in place
    allocate(sbuf(M), rbuf(M * size))
    sbuf = [(ival(rank, i), i = 1, M)]
    rbuf = -1
    call MPI_Iallgather(sbuf, M, MPI_INTEGER, rbuf, M, MPI_INTEGER, comm, req(1), ierr)
    call posted(K_ALLGATHER)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call expect(all(rbuf == [((ival(j, i), i = 1, M), j = 0, size - 1)]))
    call fold(K_ALLGATHER, rbuf)
    rbuf = -1
    rbuf(rank * M + 1 : rank * M + M) = sbuf
    call MPI_Iallgather(MPI_IN_PLACE, M, MPI_INTEGER, rbuf, M, MPI_INTEGER, comm, req(1), ierr)
    call posted(K_ALLGATHER)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call expect(all(rbuf == [((ival(j, i), i = 1, M), j = 0, size - 1)]))
    call fold(K_ALLGATHER, rbuf)
    deallocate(sbuf, rbuf)

    ! ialltoall + a test loop
    allocate(sbuf(M * size), rbuf(M * size))
    do j = 0, size - 1
      sbuf(j * M + 1 : j * M + M) = [(rank * 10000 + j * M + i, i = 1, M)]
    end do
    rbuf = -1
    call MPI_Ialltoall(sbuf, M, MPI_INTEGER, rbuf, M, MPI_INTEGER, comm, req(1), ierr)
    call posted(K_ALLTOALL)
    call test_loop(req(1))
    do j = 0, size - 1
      call expect(all(rbuf(j * M + 1 : j * M + M) == [(j * 10000 + rank * M + i, i = 1, M)]))
    end do
    call fold(K_ALLTOALL, rbuf)
    deallocate(sbuf, rbuf)

    ! ireduce_scatter_block of M each + wait; then in place
    allocate(sbuf(M * size), rbuf(M * size))
    sbuf = [(ival(rank, i), i = 1, M * size)]
    rbuf = -1
    call MPI_Ireduce_scatter_block(sbuf, rbuf, M, MPI_INTEGER, MPI_SUM, comm, req(1), ierr)
    call posted(K_RSB)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call expect(all(rbuf(1:M) == [(sumval(rank * M + i), i = 1, M)]))
    call fold(K_RSB, rbuf)
    rbuf = sbuf
    call MPI_Ireduce_scatter_block(MPI_IN_PLACE, rbuf, M, MPI_INTEGER, MPI_SUM, comm, req(1), &
                                   ierr)
    call posted(K_RSB)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call expect(all(rbuf(1:M) == [(sumval(rank * M + i), i = 1, M)]))
    call fold(K_RSB, rbuf(1:M)) ! the rest is undefined after an in-place call
    deallocate(sbuf, rbuf)

    ! iscan + wait, then in place; iexscan + a test loop, then in place
    ! (rank 0's exscan result is undefined: neither checked nor folded)
    allocate(sbuf(N), rbuf(N))
    sbuf = [(ival(rank, i), i = 1, N)]
    rbuf = -1
    call MPI_Iscan(sbuf, rbuf, N, MPI_INTEGER, MPI_SUM, comm, req(1), ierr)
    call posted(K_SCAN)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call expect(all(rbuf == [(prefval(rank, i), i = 1, N)]))
    call fold(K_SCAN, rbuf)
    rbuf = sbuf
    call MPI_Iscan(MPI_IN_PLACE, rbuf, N, MPI_INTEGER, MPI_SUM, comm, req(1), ierr)
    call posted(K_SCAN)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call expect(all(rbuf == [(prefval(rank, i), i = 1, N)]))
    call fold(K_SCAN, rbuf)
    rbuf = -1
    call MPI_Iexscan(sbuf, rbuf, N, MPI_INTEGER, MPI_SUM, comm, req(1), ierr)
    call posted(K_EXSCAN)
    call test_loop(req(1))
    if (rank > 0) then
      call expect(all(rbuf == [(prefval(rank - 1, i), i = 1, N)]))
      call fold(K_EXSCAN, rbuf)
    end if
    rbuf = sbuf
    call MPI_Iexscan(MPI_IN_PLACE, rbuf, N, MPI_INTEGER, MPI_SUM, comm, req(1), ierr)
    call posted(K_EXSCAN)
    call test_loop(req(1))
    if (rank > 0) then
      call expect(all(rbuf == [(prefval(rank - 1, i), i = 1, N)]))
      call fold(K_EXSCAN, rbuf)
    end if
    deallocate(sbuf, rbuf)

    ! the v-collectives' counts: rank j's block has mod(j, 3) * 50
    ! elements (zero for every third rank), the blocks in reverse rank
    ! order
    allocate(cnts(0:size - 1), dsps(0:size - 1))
    at = 0
    do j = size - 1, 0, -1
      cnts(j) = mod(j, 3) * 50
      dsps(j) = at
      at = at + cnts(j)
    end do

    ! iallgatherv + wait; then in place
    allocate(sbuf(max(cnts(rank), 1)), rbuf(max(at, 1)))
    sbuf = [(rank * 1000 + i, i = 1, max(cnts(rank), 1))]
    rbuf = -1
    call MPI_Iallgatherv(sbuf, cnts(rank), MPI_INTEGER, rbuf, cnts, dsps, MPI_INTEGER, comm, &
                         req(1), ierr)
    call posted(K_ALLGATHERV)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call expect_blocks(rbuf)
    call fold(K_ALLGATHERV, rbuf)
    rbuf = -1
    rbuf(dsps(rank) + 1 : dsps(rank) + cnts(rank)) = sbuf(1:cnts(rank))
    call MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_INTEGER, rbuf, cnts, dsps, MPI_INTEGER, comm, &
                         req(1), ierr)
    call posted(K_ALLGATHERV)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call expect_blocks(rbuf)
    call fold(K_ALLGATHERV, rbuf)
    deallocate(sbuf, rbuf)

    ! ireduce_scatter with the same counts: block j of the sum of all
    ! sends (blocks in rank order), completed with waitall; then in place
    allocate(sbuf(max(at, 1)), rbuf(max(at, 1)))
    sbuf = [(rank + i, i = 1, max(at, 1))]
    rbuf = -1
    call MPI_Ireduce_scatter(sbuf, rbuf, cnts, MPI_INTEGER, MPI_SUM, comm, req(1), ierr)
    call posted(K_RS)
    call MPI_Waitall(1, req, MPI_STATUSES_IGNORE, ierr)
    k = sum(cnts(0:rank - 1))
    do i = 1, cnts(rank)
      call expect(rbuf(i) == size * (k + i) + size * (size - 1) / 2)
    end do
    call fold(K_RS, rbuf(1:max(cnts(rank), 1)))
    rbuf = sbuf
    call MPI_Ireduce_scatter(MPI_IN_PLACE, rbuf, cnts, MPI_INTEGER, MPI_SUM, comm, req(1), ierr)
    call posted(K_RS)
    call MPI_Waitall(1, req, MPI_STATUSES_IGNORE, ierr)
    do i = 1, cnts(rank)
      call expect(rbuf(i) == size * (k + i) + size * (size - 1) / 2)
    end do
    call fold(K_RS, rbuf(1:cnts(rank)))
    deallocate(sbuf, rbuf)

    ! igatherv to the last rank + wait; then in place at the root
    allocate(sbuf(max(cnts(rank), 1)), rbuf(max(at, 1)))
    sbuf = [(rank * 1000 + i, i = 1, max(cnts(rank), 1))]
    rbuf = -1
    call MPI_Igatherv(sbuf, cnts(rank), MPI_INTEGER, rbuf, cnts, dsps, MPI_INTEGER, root, comm, &
                      req(1), ierr)
    call posted(K_GATHERV)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    if (rank == root) call expect_blocks(rbuf)
    call fold(K_GATHERV, rbuf)
    rbuf = -1
    if (rank == root) then
      rbuf(dsps(rank) + 1 : dsps(rank) + cnts(rank)) = sbuf(1:cnts(rank))
      call MPI_Igatherv(MPI_IN_PLACE, 0, MPI_INTEGER, rbuf, cnts, dsps, MPI_INTEGER, root, &
                        comm, req(1), ierr)
    else
      call MPI_Igatherv(sbuf, cnts(rank), MPI_INTEGER, rbuf, cnts, dsps, MPI_INTEGER, root, &
                        comm, req(1), ierr)
    end if
    call posted(K_GATHERV)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    if (rank == root) call expect_blocks(rbuf)
    call fold(K_GATHERV, rbuf)
    deallocate(sbuf, rbuf)

    ! iscatterv from rank 0 + a test loop; then in place at the root
    allocate(sbuf(max(at, 1)), rbuf(max(maxval(cnts), 1)))
    sbuf = -7
    do j = 0, size - 1
      sbuf(dsps(j) + 1 : dsps(j) + cnts(j)) = [(j * 1000 + i, i = 1, cnts(j))]
    end do
    rbuf = -1
    call MPI_Iscatterv(sbuf, cnts, dsps, MPI_INTEGER, rbuf, cnts(rank), MPI_INTEGER, 0, comm, &
                       req(1), ierr)
    call posted(K_SCATTERV)
    call test_loop(req(1))
    call expect(all(rbuf(1:cnts(rank)) == [(rank * 1000 + i, i = 1, cnts(rank))]))
    call expect(all(rbuf(cnts(rank) + 1:) == -1))
    call fold(K_SCATTERV, rbuf)
    rbuf = -1
    if (rank == 0) then
      call MPI_Iscatterv(sbuf, cnts, dsps, MPI_INTEGER, MPI_IN_PLACE, cnts(rank), MPI_INTEGER, &
                         0, comm, req(1), ierr)
    else
      call MPI_Iscatterv(sbuf, cnts, dsps, MPI_INTEGER, rbuf, cnts(rank), MPI_INTEGER, 0, comm, &
                         req(1), ierr)
    end if
    call posted(K_SCATTERV)
    call test_loop(req(1))
    if (rank /= 0) call expect(all(rbuf(1:cnts(rank)) == [(rank * 1000 + i, i = 1, cnts(rank))]))
    call fold(K_SCATTERV, rbuf)
    if (rank == 0) call fold(K_SCATTERV, sbuf)
    deallocate(sbuf, rbuf)

    ! ialltoallv: rank r sends M + r elements to j unless mod(r + 2 j, 3)
    ! == 0 (a count both ends compute alike), the send blocks in rank
    ! order, the receive blocks in reverse rank order with a gap of 3
    ! between them; completed with waitall
    allocate(scnt(0:size - 1), sdsp(0:size - 1), rcnt(0:size - 1), rdsp(0:size - 1))
    at = 0
    do j = 0, size - 1
      scnt(j) = merge(0, M + rank, mod(rank + 2 * j, 3) == 0)
      sdsp(j) = at
      at = at + scnt(j)
    end do
    allocate(sbuf(max(at, 1)))
    at = 0
    do j = size - 1, 0, -1
      rcnt(j) = merge(0, M + j, mod(j + 2 * rank, 3) == 0)
      rdsp(j) = at
      at = at + rcnt(j) + 3
    end do
    allocate(rbuf(max(at, 1)))
    do j = 0, size - 1
      sbuf(sdsp(j) + 1 : sdsp(j) + scnt(j)) = [(rank * 100000 + j * 1000 + i, i = 1, scnt(j))]
    end do
    rbuf = -1
    call MPI_Ialltoallv(sbuf, scnt, sdsp, MPI_INTEGER, rbuf, rcnt, rdsp, MPI_INTEGER, comm, &
                        req(1), ierr)
    call posted(K_ALLTOALLV)
    call MPI_Waitall(1, req, MPI_STATUSES_IGNORE, ierr)
    do j = 0, size - 1
      call expect(all(rbuf(rdsp(j) + 1 : rdsp(j) + rcnt(j)) == &
                      [(j * 100000 + rank * 1000 + i, i = 1, rcnt(j))]))
      call expect(all(rbuf(rdsp(j) + rcnt(j) + 1 : rdsp(j) + rcnt(j) + 3) == -1))
    end do
    call fold(K_ALLTOALLV, rbuf)
    deallocate(sbuf, rbuf, scnt, sdsp, rcnt, rdsp)
    deallocate(cnts, dsps)
  end do

  ! every rank's digests to world rank 0, folded in rank order
  call MPI_Gather(dig, NK, MPI_INTEGER8, alldig, NK, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
  tot = [checks, errors]
  call MPI_Allreduce(tot, res, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (wrank == 0) then
    write (*, '(a)', advance='no') 'calls'
    do k = 1, NK
      write (*, '(3a,i0)', advance='no') ' ', trim(kname(k)), '=', ncalls(k)
    end do
    write (*, '(a)') ''
    do k = 1, NK
      h = 0
      do j = 0, wsize - 1
        h = modulo(h * HMUL + alldig(k, j), HMOD)
      end do
      write (*, '(3a,i0)') 'digest ', trim(kname(k)), ' ', h
    end do
    if (res(2) == 0 .and. res(1) > 0) then
      write (*, '(a,i0,a,i0,a,i0,a)') 'nb_fortran: np=', wsize, ' checks=', res(1), ' errors=', res(2), ' OK'
    else
      write (*, '(a,i0,a,i0,a,i0,a)') 'nb_fortran: np=', wsize, ' checks=', res(1), ' errors=', res(2), ' FAILED'
    end if
  end if
  call MPI_Comm_free(sub, ierr)
  call MPI_Finalize(ierr)
  if (res(2) /= 0) stop 1
contains
  pure integer function ival(who, i)
    integer, intent(in) :: who, i
    ival = who * 1009 + i
  end function ival
  ! the sum of ival(0 .. who, i): scan's result at rank who
  pure integer function prefval(who, i)
    integer, intent(in) :: who, i
    prefval = 1009 * who * (who + 1) / 2 + (who + 1) * i
  end function prefval

  ! the sum over the communicator's ranks of ival(., i)
  integer function sumval(i)
    integer, intent(in) :: i
    sumval = 1009 * size * (size - 1) / 2 + size * i
  end function sumval

  subroutine expect(ok)
    logical, intent(in) :: ok
    checks = checks + 1
    if (.not. ok) then
      errors = errors + 1
      write (0, '(a,i0,a,i0)') 'nb_fortran: world rank ', wrank, ': check failed: ', checks
    end if
  end subroutine expect

  ! a call of collective k was posted: count it, check its ierror
  subroutine posted(k)
    integer, intent(in) :: k
    ncalls(k) = ncalls(k) + 1
    call expect(ierr == MPI_SUCCESS)
  end subroutine posted

  ! fold every element of a into collective k's digest
  subroutine fold(k, a)
    integer, intent(in) :: k
    integer, intent(in) :: a(:)
    integer :: q
    dig(k) = modulo(dig(k) * HMUL + ubound(a, 1), HMOD) ! size: a variable here
    do q = 1, ubound(a, 1)
      dig(k) = modulo(dig(k) * HMUL + int(a(q), 8), HMOD)
    end do
  end subroutine fold

  ! the v-collectives' receive buffer: block j at dsps(j), j * 1000 + i
  subroutine expect_blocks(a)
    integer, intent(in) :: a(:)
    integer :: q, w
    do q = 0, size - 1
      do w = 1, cnts(q)
        call expect(a(dsps(q) + w) == q * 1000 + w)
      end do
    end do
  end subroutine expect_blocks

  subroutine test_loop(r)
    HREQ, intent(inout) :: r
    flag = .false.
    do while (.not. flag)
      call MPI_Test(r, flag, MPI_STATUS_IGNORE, ierr)
    end do
  end subroutine test_loop
end program nb_fortran
