# C[row0..row0+3][col0..col0+3] of C = A x B
        S2R  R0, SR_TID_X
        S2R  R1, SR_CTAID_X
        S2R  R2, SR_NTID_X
        IMAD R0, R1, R2, R0
        SHL  R40, R0, 2              # col0: first column of this thread's tile
        S2R  R0, SR_TID_Y
        S2R  R1, SR_CTAID_Y
        S2R  R2, SR_NTID_Y
        IMAD R0, R1, R2, R0
        SHL  R41, R0, 2              # row0: first row of the tile
        LDP  R46, m
        LDP  R43, n
        LDP  R42, k
        ISETP.GE P0, R41, R46
@P0     EXIT
        ISETP.GE P0, R40, R43
@P0     EXIT
        SHL  R44, R43, 2             # bytes per row of B and C
        SHL  R45, R42, 2             # bytes per row of A
        LDP  R4, a
        IMAD R4, R41, R45, R4        # &A[row0][0] .. &A[row0+3][0]
        IADD R5, R4, R45
        IADD R6, R5, R45
        IADD R7, R6, R45
        LDP  R3, b
        SHL  R0, R40, 2
        IADD R3, R3, R0              # &B[0][col0]
        MOV  R16, 0
        MOV  R17, 0
        MOV  R18, 0
        MOV  R19, 0
        MOV  R20, 0
        MOV  R21, 0
        MOV  R22, 0
        MOV  R23, 0
        MOV  R24, 0
        MOV  R25, 0
        MOV  R26, 0
        MOV  R27, 0
        MOV  R28, 0
        MOV  R29, 0
        MOV  R30, 0
        MOV  R31, 0
        MOV  R2, 0                   # l
loop:   LD   R8, [R4]                # A[row0+r][l], r = 0..3
        LD   R9, [R5]
        LD   R10, [R6]
        LD   R11, [R7]
        LD   R12, [R3]               # B[l][col0+c], c = 0..3
        LD   R13, [R3 + 4]
        LD   R14, [R3 + 8]
        LD   R15, [R3 + 12]
        FFMA R16, R8, R12, R16
        FFMA R17, R8, R13, R17
        FFMA R18, R8, R14, R18
        FFMA R19, R8, R15, R19
        FFMA R20, R9, R12, R20
        FFMA R21, R9, R13, R21
        FFMA R22, R9, R14, R22
        FFMA R23, R9, R15, R23
        FFMA R24, R10, R12, R24
        FFMA R25, R10, R13, R25
        FFMA R26, R10, R14, R26
        FFMA R27, R10, R15, R27
        FFMA R28, R11, R12, R28
        FFMA R29, R11, R13, R29
        FFMA R30, R11, R14, R30
        FFMA R31, R11, R15, R31
        IADD R4, R4, 4
        IADD R5, R5, 4
        IADD R6, R6, 4
        IADD R7, R7, 4
        IADD R3, R3, R44
        IADD R2, R2, 1
        ISETP.LT P1, R2, R42
@P1     BRA  loop
        LDP  R0, c
        IMAD R0, R41, R44, R0        # &C[row0][0]
        SHL  R1, R40, 2
        IADD R0, R0, R1              # &C[row0][col0]
        ST   [R0], R16
        ST   [R0 + 4], R17
        ST   [R0 + 8], R18
        ST   [R0 + 12], R19
        IADD R0, R0, R44             # next row of C
        ST   [R0], R20
        ST   [R0 + 4], R21
        ST   [R0 + 8], R22
        ST   [R0 + 12], R23
        IADD R0, R0, R44             # next row of C
        ST   [R0], R24
        ST   [R0 + 4], R25
        ST   [R0 + 8], R26
        ST   [R0 + 12], R27
        IADD R0, R0, R44             # next row of C
        ST   [R0], R28
        ST   [R0 + 4], R29
        ST   [R0 + 8], R30
        ST   [R0 + 12], R31
        EXIT
