! fortran_check: every collective libacct wraps, called from Fortran (issue 22).
!
! One source, three programs: compiled with -DACCT_MPIFH (include 'mpif.h',
! MPI_INIT), -DACCT_USE_MPI (use mpi, MPI_INIT_THREAD(MPI_THREAD_SERIALIZED))
! or -DACCT_F08 (use mpi_f08, MPI_Init_thread(MPI_THREAD_FUNNELED)). On
! MPI_COMM_WORLD and on a sub-communicator (split by parity, ranks
! reversed), over counts 0, 1, 5, 1000 and 20000 and the first and last
! root, it runs barrier, bcast, reduce, allreduce, reduce_scatter_block,
! allgatherv, reduce_scatter, gatherv, scatterv, alltoallv, scan, exscan,
! gather, scatter, allgather and alltoall, with MPI_IN_PLACE wherever MPI
! allows it, derived datatypes (a strided vector against plain integers;
! a contiguous pair), a non-commutative user operation (composition of
! affine maps modulo a prime: any reordering of the ranks changes the
! result), MPI_BOTTOM with an absolute-address datatype, a broadcast on
! MPI_COMM_SELF, and an erroneous root under MPI_ERRORS_RETURN (the error
! must come back through ierror). Then the C library half (fcheck_c.c)
! runs bcast, reduce and allreduce through the C bindings, as ScaLAPACK
! and BLACS do under a Fortran main program. Every result is checked
! against its closed form, every ierror against MPI_SUCCESS.
!
! With -DACCT_PLUGIN it is a shared library whose C entry point
! acct_plugin_run() does all of that, for tests/mpi/dlopen/dlopen_main.c
! (RTLD_LOCAL: MPI and the Fortran library only in the plugin's scope).
!
! Output (world rank 0), as tests/mpi/program_check.sh expects:
!   calls <collective>=<n> ...   the collective calls world rank 0 made
!   rt_mapped=<0|1>              libacct_rt.so in /proc/self/maps
!   fortran_<variant>: np=<n> checks=<n> errors=<n> OK|FAILED
! Exit status 0 when every check passed on every rank.

#if defined(ACCT_F08)
#define HCOMM type(MPI_Comm)
#define HTYPE type(MPI_Datatype)
#define HOP type(MPI_Op)
#define FHANDLE(h) h%MPI_VAL
#define VARIANT 'fortran_f08'
#elif defined(ACCT_USE_MPI)
#define HCOMM integer
#define HTYPE integer
#define HOP integer
#define FHANDLE(h) h
#define VARIANT 'fortran_use_mpi'
#elif defined(ACCT_MPIFH)
#define HCOMM integer
#define HTYPE integer
#define HOP integer
#define FHANDLE(h) h
#define VARIANT 'fortran_mpifh'
#else
#error "compile with -DACCT_MPIFH, -DACCT_USE_MPI or -DACCT_F08"
#endif

module fcheck
#if defined(ACCT_F08)
  use mpi_f08
#elif defined(ACCT_USE_MPI)
  use mpi
#endif
  use, intrinsic :: iso_c_binding, only: c_int, c_long_long, c_ptr, c_f_pointer
  implicit none
#if defined(ACCT_MPIFH)
  include 'mpif.h'
#endif
  integer, parameter :: NCOLL = 16
  integer, parameter :: C_BARRIER = 1, C_BCAST = 2, C_REDUCE = 3, C_ALLREDUCE = 4, &
       C_GATHER = 5, C_SCATTER = 6, C_ALLGATHER = 7, C_ALLTOALL = 8, C_RSB = 9, &
       C_ALLGATHERV = 10, C_RS = 11, C_GATHERV = 12, C_SCATTERV = 13, C_ALLTOALLV = 14, &
       C_SCAN = 15, C_EXSCAN = 16
  character(len=20), parameter :: cname(NCOLL) = [character(len=20) :: 'barrier', 'bcast', &
       'reduce', 'allreduce', 'gather', 'scatter', 'allgather', 'alltoall', 'reduce_scatter_block', &
       'allgatherv', 'reduce_scatter', 'gatherv', 'scatterv', 'alltoallv', 'scan', 'exscan']
  integer, parameter :: NCOUNTS = 5
  integer, parameter :: counts(NCOUNTS) = [0, 1, 5, 1000, 20000]
  integer, parameter :: PRIME = 9973
  integer(c_long_long) :: calls(NCOLL) = 0
  integer :: wrank = -1, checks = 0, errors = 0

  interface
    ! fcheck_c.c: bcast, reduce, allreduce through the C bindings on the
    ! communicator (a Fortran handle); returns its errors, adds its checks.
    integer(c_int) function fcheck_c_side(comm, ccalls, cchecks) bind(C, name='fcheck_c_side')
      import :: c_int, c_long_long
      integer(c_int), value :: comm
      integer(c_long_long) :: ccalls(*)
      integer(c_int) :: cchecks
    end function fcheck_c_side
  end interface

contains

  subroutine expect(ok, what, n, root)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer, intent(in) :: n, root
    checks = checks + 1
    if (.not. ok) then
      if (errors < 10) write (0, '(a,i0,3a,i0,a,i0)') 'rank ', wrank, ': ', what, ' wrong, n=', &
           n, ' root=', root
      errors = errors + 1
    end if
  end subroutine expect

  ! One call of collective k made; its ierror must be MPI_SUCCESS.
  subroutine called(k, ierr, what)
    integer, intent(in) :: k, ierr
    character(len=*), intent(in) :: what
    calls(k) = calls(k) + 1
    call expect(ierr == MPI_SUCCESS, what // ' ierror', ierr, -1)
  end subroutine called

  ! Rank r's integer i: exact in any summation order.
  pure integer function ival(r, i)
    integer, intent(in) :: r, i
    ival = mod(r * 31 + i * 7, 1000)
  end function ival

  pure double precision function dval(r, i)
    integer, intent(in) :: r, i
    dval = r + mod(i, 4096) * 0.5d0
  end function dval

  ! Rank r's affine map i: x -> m x + c (mod PRIME), m never 0.
  pure subroutine affine_of(r, i, m, c)
    integer, intent(in) :: r, i
    integer, intent(out) :: m, c
    m = 1 + mod(r * 7 + i * 3, PRIME - 1)
    c = mod(r * 5 + i + 1, PRIME)
  end subroutine affine_of

  ! (a then b): x -> bm (am x + ac) + bc. Associative, not commutative.
  pure subroutine compose(am, ac, bm, bc)
    integer, intent(in) :: am, ac
    integer, intent(inout) :: bm, bc
    bc = mod(bm * ac + bc, PRIME)
    bm = mod(am * bm, PRIME)
  end subroutine compose

  ! The user operation: inoutvec(i) = invec(i) o inoutvec(i), on pairs.
#if defined(ACCT_F08)
  subroutine affine_op(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    integer :: i
    call c_f_pointer(invec, a, [2 * len])
    call c_f_pointer(inoutvec, b, [2 * len])
    do i = 1, len
      call compose(a(2 * i - 1), a(2 * i), b(2 * i - 1), b(2 * i))
    end do
    if (.false.) print *, datatype%MPI_VAL
  end subroutine affine_op
#else
  subroutine affine_op(invec, inoutvec, len, datatype)
    integer :: len, datatype
    integer :: invec(2 * len), inoutvec(2 * len)
    integer :: i
    do i = 1, len
      call compose(invec(2 * i - 1), invec(2 * i), inoutvec(2 * i - 1), inoutvec(2 * i))
    end do
    if (.false.) print *, datatype
  end subroutine affine_op
#endif

  ! Every collective on comm (rank r of p).
  subroutine run_comm(comm, r, p)
    HCOMM, intent(in) :: comm
    integer, intent(in) :: r, p
    integer :: ci, n, ri, root, roots(2), i, j, k, ierr, m, c
    integer, allocatable :: a(:), b(:), e(:), rc(:), dp(:)
    integer :: tot
    double precision, allocatable :: d(:), s(:)
    logical :: ok
    HTYPE :: vec, pair
    HOP :: affine

    roots = [0, p - 1]
    call MPI_Type_contiguous(2, MPI_INTEGER, pair, ierr)
    call MPI_Type_commit(pair, ierr)
    call MPI_Op_create(affine_op, .false., affine, ierr)

    call MPI_Barrier(comm, ierr)
    call called(C_BARRIER, ierr, 'barrier')

    do ci = 1, NCOUNTS
      n = counts(ci)
      allocate (a(max(1, p * n)), b(max(1, 2 * p * n)), e(max(1, 2 * p * n)))
      allocate (d(max(1, n)), s(max(1, n)))
      do ri = 1, 2
        root = roots(ri)
        ! bcast, integers
        do i = 1, n
          a(i) = merge(ival(root, i), -1, r == root)
        end do
        call MPI_Bcast(a, n, MPI_INTEGER, root, comm, ierr)
        call called(C_BCAST, ierr, 'bcast')
        call expect(all([(a(i) == ival(root, i), i = 1, n)]), 'bcast', n, root)

        ! bcast, a strided vector: every other integer moves
        if (n > 0) then
          call MPI_Type_vector(n, 1, 2, MPI_INTEGER, vec, ierr)
          call MPI_Type_commit(vec, ierr)
          do i = 1, 2 * n
            b(i) = merge(ival(root, i), -1, r == root)
          end do
          call MPI_Bcast(b, 1, vec, root, comm, ierr)
          call called(C_BCAST, ierr, 'bcast vector')
          ok = .true.
          do i = 1, 2 * n
            if (mod(i, 2) == 1 .or. r == root) then
              ok = ok .and. b(i) == ival(root, i)
            else
              ok = ok .and. b(i) == -1
            end if
          end do
          call expect(ok, 'bcast vector', n, root)

          ! gather from a strided vector into plain integers
          do i = 1, 2 * n
            b(i) = merge(ival(r, (i + 1) / 2), -5, mod(i, 2) == 1)
          end do
          a(1:p * n) = -1
          call MPI_Gather(b, 1, vec, a, n, MPI_INTEGER, root, comm, ierr)
          call called(C_GATHER, ierr, 'gather vector')
          if (r == root) call expect(all([((a(j * n + i) == ival(j, i), i = 1, n), j = 0, p - 1)]), &
               'gather vector', n, root)
          call MPI_Type_free(vec, ierr)
        end if

        ! reduce, doubles: to root, then in place at root
        do i = 1, n
          d(i) = dval(r, i)
          s(i) = -7
        end do
        call MPI_Reduce(d, s, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, comm, ierr)
        call called(C_REDUCE, ierr, 'reduce')
        if (r == root) call expect(all([(s(i) == p * (p - 1) / 2 + p * mod(i, 4096) * 0.5d0, &
             i = 1, n)]), 'reduce', n, root)
        if (r == root) then
          s(1:n) = d(1:n)
          call MPI_Reduce(MPI_IN_PLACE, s, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, comm, ierr)
        else
          call MPI_Reduce(d, s, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, comm, ierr)
        end if
        call called(C_REDUCE, ierr, 'reduce in place')
        if (r == root) call expect(all([(s(i) == p * (p - 1) / 2 + p * mod(i, 4096) * 0.5d0, &
             i = 1, n)]), 'reduce in place', n, root)

        ! reduce with the non-commutative operation on pairs
        do i = 1, n
          call affine_of(r, i, b(2 * i - 1), b(2 * i))
        end do
        e(1:2 * n) = -1
        call MPI_Reduce(b, e, n, pair, affine, root, comm, ierr)
        call called(C_REDUCE, ierr, 'reduce user op')
        if (r == root) then
          ok = .true.
          do i = 1, n
            call expected_affine(p, i, m, c)
            ok = ok .and. e(2 * i - 1) == m .and. e(2 * i) == c
          end do
          call expect(ok, 'reduce user op', n, root)
        end if

        ! gather: plain, then in place at root
        do i = 1, n
          b(i) = ival(r, i)
        end do
        a(1:p * n) = -1
        call MPI_Gather(b, n, MPI_INTEGER, a, n, MPI_INTEGER, root, comm, ierr)
        call called(C_GATHER, ierr, 'gather')
        if (r == root) call expect(all([((a(j * n + i) == ival(j, i), i = 1, n), j = 0, p - 1)]), &
             'gather', n, root)
        if (r == root) then
          a(1:p * n) = -1
          a(r * n + 1:r * n + n) = b(1:n)
          call MPI_Gather(MPI_IN_PLACE, n, MPI_INTEGER, a, n, MPI_INTEGER, root, comm, ierr)
        else
          call MPI_Gather(b, n, MPI_INTEGER, a, n, MPI_INTEGER, root, comm, ierr)
        end if
        call called(C_GATHER, ierr, 'gather in place')
        if (r == root) call expect(all([((a(j * n + i) == ival(j, i), i = 1, n), j = 0, p - 1)]), &
             'gather in place', n, root)

        ! scatter: plain, then in place at root
        do j = 0, p - 1
          do i = 1, n
            a(j * n + i) = merge(ival(j + 100, i), -1, r == root)
          end do
        end do
        b(1:n) = -3
        call MPI_Scatter(a, n, MPI_INTEGER, b, n, MPI_INTEGER, root, comm, ierr)
        call called(C_SCATTER, ierr, 'scatter')
        call expect(all([(b(i) == ival(r + 100, i), i = 1, n)]), 'scatter', n, root)
        if (r == root) then
          call MPI_Scatter(a, n, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, root, comm, ierr)
          call called(C_SCATTER, ierr, 'scatter in place')
          call expect(all([((a(j * n + i) == ival(j + 100, i), i = 1, n), j = 0, p - 1)]), &
               'scatter in place (root keeps its data)', n, root)
        else
          b(1:n) = -3
          call MPI_Scatter(a, n, MPI_INTEGER, b, n, MPI_INTEGER, root, comm, ierr)
          call called(C_SCATTER, ierr, 'scatter in place')
          call expect(all([(b(i) == ival(r + 100, i), i = 1, n)]), 'scatter in place', n, root)
        end if
      end do

      ! allreduce, integers: plain, then in place
      do i = 1, n
        b(i) = ival(r, i)
      end do
      a(1:n) = -1
      call MPI_Allreduce(b, a, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      call called(C_ALLREDUCE, ierr, 'allreduce')
      call expect(all([(a(i) == sum([(ival(k, i), k = 0, p - 1)]), i = 1, n)]), 'allreduce', n, -1)
      a(1:n) = b(1:n)
      call MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      call called(C_ALLREDUCE, ierr, 'allreduce in place')
      call expect(all([(a(i) == sum([(ival(k, i), k = 0, p - 1)]), i = 1, n)]), &
           'allreduce in place', n, -1)

      ! allreduce with the non-commutative operation, in place
      do i = 1, n
        call affine_of(r, i, e(2 * i - 1), e(2 * i))
      end do
      call MPI_Allreduce(MPI_IN_PLACE, e, n, pair, affine, comm, ierr)
      call called(C_ALLREDUCE, ierr, 'allreduce user op')
      ok = .true.
      do i = 1, n
        call expected_affine(p, i, m, c)
        ok = ok .and. e(2 * i - 1) == m .and. e(2 * i) == c
      end do
      call expect(ok, 'allreduce user op', n, -1)

      ! reduce_scatter_block: plain, then in place
      do i = 1, p * n
        b(i) = ival(r, i)
      end do
      a(1:max(1, n)) = -1
      call MPI_Reduce_scatter_block(b, a, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      call called(C_RSB, ierr, 'reduce_scatter_block')
      call expect(all([(a(i) == sum([(ival(k, r * n + i), k = 0, p - 1)]), i = 1, n)]), &
           'reduce_scatter_block', n, -1)
      e(1:p * n) = b(1:p * n)
      call MPI_Reduce_scatter_block(MPI_IN_PLACE, e, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      call called(C_RSB, ierr, 'reduce_scatter_block in place')
      call expect(all([(e(i) == sum([(ival(k, r * n + i), k = 0, p - 1)]), i = 1, n)]), &
           'reduce_scatter_block in place', n, -1)

      ! scan and exscan, integers: plain, then in place (exscan: rank 0's
      ! result is undefined, not checked); then the non-commutative
      ! operation, whose prefix folds the maps of ranks 0 .. r in rank order
      do i = 1, n
        b(i) = ival(r, i)
      end do
      a(1:max(1, n)) = -1
      call MPI_Scan(b, a, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      call called(C_SCAN, ierr, 'scan')
      call expect(all([(a(i) == sum([(ival(k, i), k = 0, r)]), i = 1, n)]), 'scan', n, -1)
      a(1:n) = b(1:n)
      call MPI_Scan(MPI_IN_PLACE, a, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      call called(C_SCAN, ierr, 'scan in place')
      call expect(all([(a(i) == sum([(ival(k, i), k = 0, r)]), i = 1, n)]), 'scan in place', &
           n, -1)
      a(1:max(1, n)) = -1
      call MPI_Exscan(b, a, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      call called(C_EXSCAN, ierr, 'exscan')
      if (r > 0) call expect(all([(a(i) == sum([(ival(k, i), k = 0, r - 1)]), i = 1, n)]), &
           'exscan', n, -1)
      a(1:n) = b(1:n)
      call MPI_Exscan(MPI_IN_PLACE, a, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      call called(C_EXSCAN, ierr, 'exscan in place')
      if (r > 0) call expect(all([(a(i) == sum([(ival(k, i), k = 0, r - 1)]), i = 1, n)]), &
           'exscan in place', n, -1)
      do i = 1, n
        call affine_of(r, i, b(2 * i - 1), b(2 * i))
      end do
      e(1:2 * n) = b(1:2 * n)
      call MPI_Scan(MPI_IN_PLACE, e, n, pair, affine, comm, ierr)
      call called(C_SCAN, ierr, 'scan user op')
      ok = .true.
      do i = 1, n
        call expected_affine(r + 1, i, m, c)
        ok = ok .and. e(2 * i - 1) == m .and. e(2 * i) == c
      end do
      call expect(ok, 'scan user op', n, -1)
      e(1:2 * n) = -1
      call MPI_Exscan(b, e, n, pair, affine, comm, ierr)
      call called(C_EXSCAN, ierr, 'exscan user op')
      if (r > 0) then
        ok = .true.
        do i = 1, n
          call expected_affine(r, i, m, c)
          ok = ok .and. e(2 * i - 1) == m .and. e(2 * i) == c
        end do
        call expect(ok, 'exscan user op', n, -1)
      end if

      ! allgather: plain, then in place
      do i = 1, n
        b(i) = ival(r, i)
      end do
      a(1:p * n) = -1
      call MPI_Allgather(b, n, MPI_INTEGER, a, n, MPI_INTEGER, comm, ierr)
      call called(C_ALLGATHER, ierr, 'allgather')
      call expect(all([((a(j * n + i) == ival(j, i), i = 1, n), j = 0, p - 1)]), 'allgather', n, -1)
      a(1:p * n) = -1
      a(r * n + 1:r * n + n) = b(1:n)
      call MPI_Allgather(MPI_IN_PLACE, n, MPI_INTEGER, a, n, MPI_INTEGER, comm, ierr)
      call called(C_ALLGATHER, ierr, 'allgather in place')
      call expect(all([((a(j * n + i) == ival(j, i), i = 1, n), j = 0, p - 1)]), &
           'allgather in place', n, -1)

      ! alltoall: block j of rank r is ival(r*p+j, .); then in place
      do j = 0, p - 1
        do i = 1, n
          b(j * n + i) = ival(r * p + j, i)
        end do
      end do
      a(1:p * n) = -1
      call MPI_Alltoall(b, n, MPI_INTEGER, a, n, MPI_INTEGER, comm, ierr)
      call called(C_ALLTOALL, ierr, 'alltoall')
      call expect(all([((a(j * n + i) == ival(j * p + r, i), i = 1, n), j = 0, p - 1)]), &
           'alltoall', n, -1)
      a(1:p * n) = b(1:p * n)
      call MPI_Alltoall(MPI_IN_PLACE, n, MPI_INTEGER, a, n, MPI_INTEGER, comm, ierr)
      call called(C_ALLTOALL, ierr, 'alltoall in place')
      call expect(all([((a(j * n + i) == ival(j * p + r, i), i = 1, n), j = 0, p - 1)]), &
           'alltoall in place', n, -1)

      ! v-collectives: every third rank (1, 4, ...) contributes nothing,
      ! the others n elements; allgatherv places the blocks in reverse
      ! rank order, reduce_scatter's blocks follow in rank order
      allocate (rc(p), dp(p))
      tot = 0
      do j = 0, p - 1
        rc(j + 1) = merge(0, n, mod(j, 3) == 1)
        dp(j + 1) = (p - 1 - j) * n
        tot = tot + rc(j + 1)
      end do
      ! allgatherv: plain, then in place
      do i = 1, n
        b(i) = ival(r, i)
      end do
      e(1:max(1, p * n)) = -1
      call MPI_Allgatherv(b, rc(r + 1), MPI_INTEGER, e, rc, dp, MPI_INTEGER, comm, ierr)
      call called(C_ALLGATHERV, ierr, 'allgatherv')
      call expect(all([((e(dp(j + 1) + i) == ival(j, i), i = 1, rc(j + 1)), j = 0, p - 1)]), &
           'allgatherv', n, -1)
      e(1:max(1, p * n)) = -1
      e(dp(r + 1) + 1:dp(r + 1) + rc(r + 1)) = b(1:rc(r + 1))
      call MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INTEGER, e, rc, dp, MPI_INTEGER, comm, ierr)
      call called(C_ALLGATHERV, ierr, 'allgatherv in place')
      call expect(all([((e(dp(j + 1) + i) == ival(j, i), i = 1, rc(j + 1)), j = 0, p - 1)]), &
           'allgatherv in place', n, -1)
      ! reduce_scatter: plain, then in place (block r starts after the
      ! blocks of ranks 0 .. r-1)
      do i = 1, tot
        b(i) = ival(r, i)
      end do
      k = sum(rc(1:r))
      a(1:max(1, n)) = -1
      call MPI_Reduce_scatter(b, a, rc, MPI_INTEGER, MPI_SUM, comm, ierr)
      call called(C_RS, ierr, 'reduce_scatter')
      call expect(all([(a(i) == sum([(ival(j, k + i), j = 0, p - 1)]), i = 1, rc(r + 1))]), &
           'reduce_scatter', n, -1)
      e(1:max(1, tot)) = b(1:max(1, tot))
      call MPI_Reduce_scatter(MPI_IN_PLACE, e, rc, MPI_INTEGER, MPI_SUM, comm, ierr)
      call called(C_RS, ierr, 'reduce_scatter in place')
      call expect(all([(e(i) == sum([(ival(j, k + i), j = 0, p - 1)]), i = 1, rc(r + 1))]), &
           'reduce_scatter in place', n, -1)
      ! gatherv to the last rank: plain, then in place
      root = p - 1
      e(1:max(1, p * n)) = -1
      call MPI_Gatherv(b, rc(r + 1), MPI_INTEGER, e, rc, dp, MPI_INTEGER, root, comm, ierr)
      call called(C_GATHERV, ierr, 'gatherv')
      if (r == root) call expect(all([((e(dp(j + 1) + i) == ival(j, i), i = 1, rc(j + 1)), &
           j = 0, p - 1)]), 'gatherv', n, root)
      if (r == root) then
        e(1:max(1, p * n)) = -1
        e(dp(r + 1) + 1:dp(r + 1) + rc(r + 1)) = b(1:rc(r + 1))
        call MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INTEGER, e, rc, dp, MPI_INTEGER, root, comm, ierr)
        call expect(all([((e(dp(j + 1) + i) == ival(j, i), i = 1, rc(j + 1)), j = 0, p - 1)]), &
             'gatherv in place', n, root)
      else
        call MPI_Gatherv(b, rc(r + 1), MPI_INTEGER, e, rc, dp, MPI_INTEGER, root, comm, ierr)
      end if
      call called(C_GATHERV, ierr, 'gatherv in place')
      ! scatterv from rank 0: block j holds ival(j, .)
      root = 0
      do j = 0, p - 1
        do i = 1, rc(j + 1)
          e(dp(j + 1) + i) = ival(j, i)
        end do
      end do
      a(1:max(1, n)) = -1
      call MPI_Scatterv(e, rc, dp, MPI_INTEGER, a, rc(r + 1), MPI_INTEGER, root, comm, ierr)
      call called(C_SCATTERV, ierr, 'scatterv')
      call expect(all([(a(i) == ival(r, i), i = 1, rc(r + 1))]), 'scatterv', n, root)
      ! alltoallv: ranks r and j exchange n elements (block j of the
      ! other's ival(.*p+., .)) unless mod(r + j, 3) == 1: a count both
      ! ends compute alike
      do j = 0, p - 1
        do i = 1, n
          b(j * n + i) = ival(r * p + j, i)
        end do
      end do
      a(1:max(1, p * n)) = -1
      call MPI_Alltoallv(b, [(merge(0, n, mod(j + r, 3) == 1), j = 0, p - 1)], &
           [(j * n, j = 0, p - 1)], MPI_INTEGER, a, &
           [(merge(0, n, mod(j + r, 3) == 1), j = 0, p - 1)], [(j * n, j = 0, p - 1)], &
           MPI_INTEGER, comm, ierr)
      call called(C_ALLTOALLV, ierr, 'alltoallv')
      call expect(all([((a(j * n + i) == ival(j * p + r, i), &
           i = 1, merge(0, n, mod(j + r, 3) == 1)), j = 0, p - 1)]), 'alltoallv', n, -1)
      deallocate (rc, dp)

      deallocate (a, b, e, d, s)
    end do

    call MPI_Barrier(comm, ierr)
    call called(C_BARRIER, ierr, 'barrier')
    call MPI_Op_free(affine, ierr)
    call MPI_Type_free(pair, ierr)
  end subroutine run_comm

  ! The fold of every rank's map i, in rank order.
  pure subroutine expected_affine(p, i, m, c)
    integer, intent(in) :: p, i
    integer, intent(out) :: m, c
    integer :: k, km, kc
    call affine_of(0, i, m, c)
    do k = 1, p - 1
      call affine_of(k, i, km, kc)
      call compose(m, c, km, kc)
      m = km
      c = kc
    end do
  end subroutine expected_affine

  ! MPI_BOTTOM with a datatype of absolute addresses.
  subroutine run_bottom(comm, r, p)
    HCOMM, intent(in) :: comm
    integer, intent(in) :: r, p
    integer, parameter :: n = 777
    integer, volatile :: buf(n)
    integer(kind=MPI_ADDRESS_KIND) :: addr(1)
    integer :: i, ierr, root, lens(1)
    HTYPE :: abs_t
    root = p - 1
    do i = 1, n
      buf(i) = merge(ival(root + 7, i), -1, r == root)
    end do
    call MPI_Get_address(buf, addr(1), ierr)
    lens(1) = n
    call MPI_Type_create_hindexed(1, lens, addr, MPI_INTEGER, abs_t, ierr)
    call MPI_Type_commit(abs_t, ierr)
    call MPI_Bcast(MPI_BOTTOM, 1, abs_t, root, comm, ierr)
    call called(C_BCAST, ierr, 'bcast MPI_BOTTOM')
    call expect(all([(buf(i) == ival(root + 7, i), i = 1, n)]), 'bcast MPI_BOTTOM', n, root)
    call MPI_Type_free(abs_t, ierr)
  end subroutine run_bottom

  ! An erroneous root under MPI_ERRORS_RETURN: the error comes back in ierror.
  subroutine run_error(comm, p)
    HCOMM, intent(in) :: comm
    integer, intent(in) :: p
    HCOMM :: dup
    integer :: ierr, x(4)
    x = 0
    call MPI_Comm_dup(comm, dup, ierr)
    call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN, ierr)
    ierr = MPI_SUCCESS
    call MPI_Bcast(x, 4, MPI_INTEGER, p, dup, ierr)
    calls(C_BCAST) = calls(C_BCAST) + 1
    call expect(ierr /= MPI_SUCCESS, 'bcast to root=size returns an error in ierror', 4, p)
    call MPI_Comm_free(dup, ierr)
  end subroutine run_error

  logical function rt_mapped()
    character(len=512) :: line
    integer :: u, ios
    rt_mapped = .false.
    open (newunit=u, file='/proc/self/maps', action='read', status='old', iostat=ios)
    if (ios /= 0) return
    do
      read (u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      if (index(line, 'libacct_rt.so') > 0) rt_mapped = .true.
    end do
    close (u)
  end function rt_mapped
end module fcheck

! The whole check; 0 when every check passed on every rank.
integer function run_check()
  use fcheck
  implicit none
  integer :: ierr, wsize, srank, ssize, provided, k, totals(2), mine(2), x
  integer(c_int) :: cchecks, cerrors
  HCOMM :: sub
  character(len=512) :: out

  run_check = 2
#if defined(ACCT_F08)
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
#elif defined(ACCT_USE_MPI)
  call MPI_Init_thread(MPI_THREAD_SERIALIZED, provided, ierr)
#else
  call MPI_Init(ierr)
  provided = -1
#endif
  if (ierr /= MPI_SUCCESS) return
  call MPI_Comm_rank(MPI_COMM_WORLD, wrank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, wsize, ierr)

  call run_comm(MPI_COMM_WORLD, wrank, wsize)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(wrank, 2), -wrank, sub, ierr)
  call MPI_Comm_rank(sub, srank, ierr)
  call MPI_Comm_size(sub, ssize, ierr)
  call expect(srank == (wsize - 1 - wrank) / 2, 'sub-communicator rank (reversed)', ssize, -1)
  call run_comm(sub, srank, ssize)
  call MPI_Comm_free(sub, ierr)
  call run_bottom(MPI_COMM_WORLD, wrank, wsize)
  x = 42
  call MPI_Bcast(x, 1, MPI_INTEGER, 0, MPI_COMM_SELF, ierr)
  call called(C_BCAST, ierr, 'bcast on MPI_COMM_SELF')
  call run_error(MPI_COMM_WORLD, wsize)

  cchecks = 0
  cerrors = fcheck_c_side(int(FHANDLE(MPI_COMM_WORLD), c_int), calls, cchecks)
  checks = checks + cchecks
  errors = errors + cerrors

  mine = [checks, errors]
  call MPI_Allreduce(mine, totals, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call called(C_ALLREDUCE, ierr, 'allreduce of the totals')
  if (wrank == 0) then
    out = 'calls'
    do k = 1, NCOLL
      write (out, '(a,1x,a,a,i0)') trim(out), trim(cname(k)), '=', calls(k)
    end do
    write (*, '(a)') trim(out)
    write (*, '(a,i0)') 'rt_mapped=', merge(1, 0, rt_mapped())
    if (provided >= 0) write (*, '(a,i0)') 'thread_level=', provided
    write (*, '(2a,i0,a,i0,a,i0,1x,a)') VARIANT, ': np=', wsize, ' checks=', totals(1), &
         ' errors=', totals(2), trim(merge('OK    ', 'FAILED', totals(2) == 0))
    flush (6)
  end if
  call MPI_Finalize(ierr)
  run_check = merge(0, 1, totals(2) == 0)
end function run_check

#if defined(ACCT_PLUGIN)
! The entry point of the plugin build, for tests/mpi/dlopen/dlopen_main.c:
! MPI reached only through the plugin's local dlopen scope.
integer(c_int) function acct_plugin_run() bind(C, name='acct_plugin_run')
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  integer, external :: run_check
  acct_plugin_run = int(run_check(), c_int)
end function acct_plugin_run
#else
program fortran_check
  implicit none
  integer, external :: run_check
  if (run_check() /= 0) stop 1
end program fortran_check
#endif
