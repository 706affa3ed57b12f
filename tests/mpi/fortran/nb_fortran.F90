! nb_fortran: non-blocking collectives from Fortran (issue 22): mpi_ibcast
! completed with mpi_wait, mpi_iallreduce in one mpi_waitall array with a
! ring of mpi_isend/mpi_irecv, mpi_ialltoall completed by an mpi_test loop,
! on MPI_COMM_WORLD and on a sub-communicator (which first runs one
! mpi_barrier: ACCT's private duplicate), then the v-collectives
! mpi_iallgatherv (irregular counts, a zero one, blocks in reverse rank
! order) completed with mpi_wait and mpi_ireduce_scatter completed with
! mpi_waitall. Every result is checked against
! its closed form. Built as -DACCT_MPIFH (include 'mpif.h'), -DACCT_USE_MPI
! (use mpi) and -DACCT_F08 (use mpi_f08).
!
! Output (world rank 0): "nb_fortran: np=<n> checks=<n> errors=<n> OK|FAILED".
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
  integer, parameter :: N = 3000
  HCOMM :: sub, comm
  HREQ :: req(3)
  integer :: wrank, wsize, rank, size, ierr, i, j, c, root, left, right
  integer :: checks, errors, tot(2), res(2)
  logical :: flag
  integer, allocatable :: buf(:), sbuf(:), rbuf(:), ring_out(:), ring_in(:), cnts(:), dsps(:)
  integer :: k, at

  checks = 0
  errors = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, wrank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, wsize, ierr)
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
    ! ibcast + wait
    allocate(buf(N))
    buf = -1
    if (rank == root) buf = [(7 * i + root, i = 1, N)]
    call MPI_Ibcast(buf, N, MPI_INTEGER, root, comm, req(1), ierr)
    call expect(ierr == MPI_SUCCESS)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call expect(all(buf == [(7 * i + root, i = 1, N)]))
    deallocate(buf)
    ! iallreduce in one waitall with a ring of point-to-point messages
    allocate(sbuf(N), rbuf(N), ring_out(N), ring_in(N))
    sbuf = [(i + rank, i = 1, N)]
    ring_out = [(i * 3 + rank, i = 1, N)]
    left = mod(rank + size - 1, size)
    right = mod(rank + 1, size)
    call MPI_Irecv(ring_in, N, MPI_INTEGER, left, 9, comm, req(1), ierr)
    call MPI_Iallreduce(sbuf, rbuf, N, MPI_INTEGER, MPI_SUM, comm, req(2), ierr)
    call expect(ierr == MPI_SUCCESS)
    call MPI_Isend(ring_out, N, MPI_INTEGER, right, 9, comm, req(3), ierr)
    call MPI_Waitall(3, req, MPI_STATUSES_IGNORE, ierr)
    call expect(all(rbuf == [(size * i + size * (size - 1) / 2, i = 1, N)]))
    call expect(all(ring_in == [(i * 3 + left, i = 1, N)]))
    deallocate(sbuf, rbuf, ring_out, ring_in)
    ! ialltoall + a test loop
    allocate(sbuf(100 * size), rbuf(100 * size))
    do j = 0, size - 1
      sbuf(j * 100 + 1 : j * 100 + 100) = [(rank * 10000 + j * 100 + i, i = 1, 100)]
    end do
    rbuf = -1
    call MPI_Ialltoall(sbuf, 100, MPI_INTEGER, rbuf, 100, MPI_INTEGER, comm, req(1), ierr)
    call expect(ierr == MPI_SUCCESS)
    flag = .false.
    do while (.not. flag)
      call MPI_Test(req(1), flag, MPI_STATUS_IGNORE, ierr)
    end do
    do j = 0, size - 1
      call expect(all(rbuf(j * 100 + 1 : j * 100 + 100) == [(j * 10000 + rank * 100 + i, i = 1, 100)]))
    end do
    deallocate(sbuf, rbuf)
    ! iallgatherv: rank j's block has mod(j, 3) * 50 elements, blocks reversed
    allocate(cnts(0:size - 1), dsps(0:size - 1))
    at = 0
    do j = size - 1, 0, -1
      cnts(j) = mod(j, 3) * 50
      dsps(j) = at
      at = at + cnts(j)
    end do
    allocate(sbuf(max(cnts(rank), 1)), rbuf(max(at, 1)))
    sbuf = [(rank * 1000 + i, i = 1, max(cnts(rank), 1))]
    rbuf = -1
    call MPI_Iallgatherv(sbuf, cnts(rank), MPI_INTEGER, rbuf, cnts, dsps, MPI_INTEGER, comm, &
                         req(1), ierr)
    call expect(ierr == MPI_SUCCESS)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    do j = 0, size - 1
      do k = 1, cnts(j)
        call expect(rbuf(dsps(j) + k) == j * 1000 + k)
      end do
    end do
    deallocate(sbuf, rbuf)
    ! ireduce_scatter with the same counts: block j of the sum of all sends
    allocate(sbuf(max(at, 1)), rbuf(max(cnts(rank), 1)))
    sbuf = [(rank + i, i = 1, max(at, 1))]
    rbuf = -1
    call MPI_Ireduce_scatter(sbuf, rbuf, cnts, MPI_INTEGER, MPI_SUM, comm, req(1), ierr)
    call expect(ierr == MPI_SUCCESS)
    call MPI_Waitall(1, req, MPI_STATUSES_IGNORE, ierr)
    k = 0
    do j = 0, rank - 1
      k = k + cnts(j)
    end do
    do i = 1, cnts(rank)
      call expect(rbuf(i) == size * (k + i) + size * (size - 1) / 2)
    end do
    deallocate(sbuf, rbuf, cnts, dsps)
  end do
  tot = [checks, errors]
  call MPI_Allreduce(tot, res, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (wrank == 0) then
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
  subroutine expect(ok)
    logical, intent(in) :: ok
    checks = checks + 1
    if (.not. ok) then
      errors = errors + 1
      write (0, '(a,i0,a,i0)') 'nb_fortran: world rank ', wrank, ': check failed: ', checks
    end if
  end subroutine expect
end program nb_fortran
