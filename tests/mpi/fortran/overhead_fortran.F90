! acct-overhead-fortran: what libacct adds to a Fortran collective it leaves
! to MPI (docs/performance.md, section 1), the Fortran twin of
! tools/perf/acct-overhead. In one process it alternates blocks of CALLS
! MPI_ALLREDUCE calls of one integer (mpi_allreduce_: through libacct's
! Fortran entry point when preloaded) with blocks of PMPI_ALLREDUCE (Open
! MPI's own binding), and prints the median and quartiles over BLOCKS of
! the per-call difference in ns. Run it on one rank.
! usage: acct-overhead-fortran [BLOCKS [CALLS]]   (default 41 100000)
program overhead_fortran
  implicit none
  include 'mpif.h'
  integer :: ierr, b, i, x, y, nb, n
  character(len=32) :: arg
  double precision :: t0
  double precision, allocatable :: added(:)
  nb = 41
  n = 100000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) nb
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) n
  end if
  if (nb < 1 .or. n < 1) then
    write (0, '(a)') 'usage: acct-overhead-fortran [BLOCKS [CALLS]] (both >= 1)'
    stop 2
  end if
  allocate (added(nb))
  call MPI_Init(ierr)
  x = 1
  do b = 1, nb
    t0 = MPI_Wtime()
    do i = 1, n
      call MPI_ALLREDUCE(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    end do
    added(b) = MPI_Wtime() - t0
    t0 = MPI_Wtime()
    do i = 1, n
      call PMPI_ALLREDUCE(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    end do
    added(b) = (added(b) - (MPI_Wtime() - t0)) / n * 1d9
  end do
  call sort(added)
  write (*, '(a,i0,a,i0,a,f0.1,a,f0.1,a,f0.1,a)') 'blocks=', nb, ' calls=', n, &
       ' added per call: ', added((nb + 1) / 2), ' ns (p25 ', added((nb + 3) / 4), &
       ', p75 ', added((3 * nb + 3) / 4), ')'
  call MPI_Finalize(ierr)
contains
  subroutine sort(a)
    double precision, intent(inout) :: a(:)
    double precision :: t
    integer :: i, j
    do i = 2, size(a)
      t = a(i)
      j = i - 1
      do while (j >= 1)
        if (a(j) <= t) exit
        a(j + 1) = a(j)
        j = j - 1
      end do
      a(j + 1) = t
    end do
  end subroutine sort
end program overhead_fortran
